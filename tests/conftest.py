"""Test-wide settings: the app's entry file runs with in-memory stores unless a test says otherwise,
and the engine fixtures (tests/support/engine.py) and the command's data folder (tests/support/cli.py)
are there for every test."""

from __future__ import annotations

import gc
import os

import pytest

os.environ.setdefault("SEQDESK_MEMORY", "1")

pytest_plugins = ["support.engine", "support.cli"]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything collected lives to the end: out of the collector's sight. NiceGUI's `user` fixture
    collects garbage twice a test, and walking the whole collected suite each time took longer than
    many tests themselves."""
    gc.collect()
    gc.freeze()
