"""Debian's Chromium, as every browser test here drives it (tests/pages/conftest.py's `browser`)."""

from __future__ import annotations

import shutil

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Headless in a container: no sandbox inside the sandbox, no GPU, and no traffic of its own. The
# "other site" framing an embed (test_public_browser.py) is a page a test makes up, with no address
# of its own, which Chromium would take for a public one and keep from framing a local address.
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests",
]  # fmt: skip
