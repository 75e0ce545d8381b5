"""Debian's Chromium, as every browser test here drives it (Playwright with `executable_path`)."""

from __future__ import annotations

import shutil

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Headless in a container: no sandbox inside the sandbox, no GPU, and no traffic of its own.
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
