"""`manage.py screenshots DIR` starts its own throwaway server with the demo data and writes a PNG of
each main page, saying which as it goes. Needs Debian's chromium (skipped without it, failed under
CI=true)."""

from __future__ import annotations

import io

from django.core.management import call_command

from tests.pages.browser import CHROMIUM
from tests.support import unavailable

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_screenshots_of_the_main_pages_from_a_throwaway_demo_server(tmp_path):
    if CHROMIUM is None:
        unavailable("Debian's chromium is not installed (apt-get install chromium)")
    out = io.StringIO()
    call_command("screenshots", str(tmp_path / "shots"), stdout=out)
    written = sorted(path.name for path in (tmp_path / "shots").iterdir())
    for expected in ("home", "tournament-1", "tournament-1-embed", "ladder-rating-chart", "match-replay-end",
                     "match-live", "deck-checker-result", "deck-1"):  # fmt: skip
        assert any(name.endswith(f"-{expected}.png") for name in written), expected
    for name in written:
        data = (tmp_path / "shots" / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 10_000, name
        assert name in out.getvalue()  # progress: each file named as it is written
    assert f"{len(written)} screenshots in" in out.getvalue()
