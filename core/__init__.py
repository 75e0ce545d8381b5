"""The base below every app: the service layer's error family and the admin's read-only base. It
imports no app, so every app may import it."""
