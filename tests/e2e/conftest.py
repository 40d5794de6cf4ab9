"""Fixtures for the end-to-end tests live in e2e_support (a plain module the tests can import by name)."""

from e2e_support import *  # noqa: F403
