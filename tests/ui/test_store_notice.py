"""A data file found damaged at start-up is shown at the top of every page until it is dismissed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nicegui.testing import User
from support.ui import app_ctx, engine_open  # noqa: F401  (autouse: wait for the engine)

from gui.runtime import open_runtime


@pytest.fixture
async def damaged_app(tmp_path: Path) -> AsyncIterator[Path]:
    """The app on a data folder whose sequences file was cut short after its first sequence."""
    doc = {"name": "kept-one", "groups": [{"name": "g", "tools": [{"tool": "echo", "args": {"value": 1}}]}]}
    tree = {"name": "kept-one", "description": "", "groups": [{**doc["groups"][0], "in": {}, "out": {}}]}
    intact = {"sequences": {b"kept-one".hex(): {"name": "kept-one", "tree": tree}}}
    (tmp_path / "sequences.json").write_text(json.dumps(intact)[:-2] + ', "6c6f7374": {"name": "lo')
    ctx = app_ctx()
    memory = ctx.runtime
    opened = await open_runtime(tmp_path)
    ctx.runtime, ctx.slot.engine = opened, opened.engine  # the app now runs on the damaged folder
    yield tmp_path
    ctx.runtime, ctx.slot.engine = memory, memory.engine if memory is not None else None
    await opened.close()


async def test_the_damaged_file_what_was_saved_and_where_the_original_went_are_shown(user: User, damaged_app):
    [moved] = [p for p in damaged_app.iterdir() if p.name.startswith("sequences.json.corrupt-")]
    await user.open("/")
    await user.should_see(marker="store-notice")
    await user.should_see(f"The data file {damaged_app / 'sequences.json'} was damaged")
    await user.should_see("1 entry was saved from it")
    await user.should_see(f"moved aside to {moved}")
    await user.should_see("kept-one")  # and the saved sequence is there
    await user.open("/settings")
    await user.should_see(marker="store-notice")  # on every page


async def test_a_dismissed_notice_stays_away(user: User, damaged_app):
    await user.open("/runs")
    user.find(marker="store-notice-dismiss").click()
    await user.should_not_see(marker="store-notice")
    assert app_ctx().notices == []
    await user.open("/inbox")
    await user.should_not_see(marker="store-notice")
