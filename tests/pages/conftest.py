"""The browser every in-browser test drives: Debian's Chromium (tests/pages/browser.py) through
Playwright's `executable_path`, never a browser Playwright downloads. Without one on the PATH the
tests that ask for it skip on a laptop and fail under CI=true (tests.support.unavailable)."""

from __future__ import annotations

import os

import pytest

from tests.pages.browser import CHROMIUM, CHROMIUM_FLAGS
from tests.support import unavailable


@pytest.fixture(scope="module")
def browser():
    """One browser for a test module; each test opens its own page in its own context (its own
    cookies), from `page`, `page_without_js`, or `browser.new_context()` for several people."""
    if CHROMIUM is None:
        unavailable("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread, which Django's async-safety check
    # would take for async code calling the database (the live server's and the test's own calls).
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    yield context.new_page()
    context.close()


@pytest.fixture
def page_without_js(browser):
    context = browser.new_context(java_script_enabled=False)
    yield context.new_page()
    context.close()
