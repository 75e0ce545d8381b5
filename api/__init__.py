"""The REST API: thin DRF views over the apps' services and selectors."""
