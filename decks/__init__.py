"""Saved Rag'n'Guns decks: owners, numbered versions, freezing for entries, share ids, text import and
export. The pure legality rules are in `engines.ragnguns`."""
