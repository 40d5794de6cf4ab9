"""Fixtures the UI tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from nicegui.testing import User

from gui import i18n


@pytest.fixture
def chinese(user: User) -> Iterator[None]:
    """The app as started with `--lang zh-CN` (pages read it when they are drawn)."""
    started, stored = i18n.defaults()
    i18n.set_defaults(started="zh_CN")
    yield
    i18n.set_defaults(started=started, stored=stored)
