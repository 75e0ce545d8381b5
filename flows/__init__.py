"""Flows: the writes that span apps, one module per flow (as Saleor's checkout/complete_checkout.py).

Each flow calls the domains' services and selectors in order inside one transaction, so a refusal
anywhere writes nothing anywhere. This layer sits below `api/` and `snakepit/` (which call a flow and
render what it returns) and above the apps, which never import it: it is where apps that must not
import each other meet (bots and ratings, matches and decks, ratings and tournaments)."""
