"""A row whose `revision` moves with every save: the version that cached reads of it key on
(core/read_cache.py). Counted up by the database, so a save from a copy read earlier never writes
an older revision back, which would serve a kept read again for a newer row."""

from __future__ import annotations

from django.db.models import F
from django.db.models.expressions import Combinable


class RevisedOnSave:
    """Mixed into a model with a `revision` integer field."""

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            self.revision = F("revision") + 1
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "revision"}
        super().save(*args, **kwargs)
        if isinstance(self.revision, Combinable):
            del self.revision  # read again from the database if asked for
