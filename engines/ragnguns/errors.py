"""Rag'n'Guns: the error the catalogue loader and the effect vocabulary raise (rules 0.3 has no word
for it: broken data is ours). Its own module so that both can raise it without importing each other.
"""

from __future__ import annotations

from engines.errors import EngineError


class CatalogueError(EngineError):
    """The catalogue, format or pre-built deck data are broken. Raised at load time, never later."""

    code = "catalogue/invalid"

    def __init__(self, detail: str, *, card_id: str | None = None, field: str | None = None):
        where = []
        if card_id is not None:
            where.append(f"card {card_id!r}")
        if field is not None:
            where.append(f"field {field!r}")
        super().__init__(f"{', '.join(where)}: {detail}" if where else detail)
        self.card_id = card_id
        self.field = field
