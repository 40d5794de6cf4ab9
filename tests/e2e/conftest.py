"""The end-to-end tests' fixtures: the real app (tests/support/app.py) and a headless Chromium
(tests/support/browser.py)."""

from support.app import seqdesk_app  # noqa: F401
from support.browser import browser, page, screenshot  # noqa: F401
