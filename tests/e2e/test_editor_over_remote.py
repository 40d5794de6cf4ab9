"""The editor and the run page ask only the door, so they work over `RemoteEngine` as over the engine.

The real app runs in its own process (tests/support/app.py); here, `RemoteEngine` reaches it through
its HTTP API and the editor's data path goes through it: what the editor opens with (a new sequence
from the example, a saved one), its checks and saves (a free name proposed for a taken one), a group
tested on its own with its events heard, and what the run page reads (a group's inputs by its name,
the tools' descriptions, the planned arguments).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from support.app import RunningApp
from support.waiting import wait_until

from gui.core.events import Event, RunFinished
from gui.remote import RemoteEngine
from gui.ui.editor import from_document
from gui.ui.editor.baseline import opening
from gui.ui.editor.group_test import test_document as group_alone
from gui.ui.editor.saving import check_draft, save_draft
from gui.ui.pages.run import describer, inputs_of, planned_args

T = 20.0
ECHO = {"name": "echoes", "description": "says it back",
        "groups": [{"name": "say-it", "in": {"word": "string"}, "out": {"said": "string"},
                    "tools": '{"tool": "echo", "args": {"value": "$args.word"}, "as": "said"} ;'}]}


@pytest.fixture
async def remote(seqdesk_app: RunningApp) -> AsyncIterator[RemoteEngine]:
    door = RemoteEngine(seqdesk_app.base_url)
    yield door
    await door.close()


async def test_the_editor_opens_checks_and_saves_over_the_app(remote: RemoteEngine):
    assert await opening(remote, "no-such-sequence") is None
    first = await opening(remote, None, example=True)
    assert first is not None and first.original is None
    assert {"cmd_run", "echo"} <= {t.name for t in first.tools.tools}
    tools = {t.name: t for t in first.tools.tools}
    saved = await save_draft(remote, first.base, None, tools)
    assert saved.saved is not None and not [p for p in saved.problems if p.severity == "error"]
    name = saved.saved.name

    reopened = await opening(remote, name)
    assert reopened is not None and reopened.original is not None
    assert reopened.base.name == name and [g.name for g in reopened.base.groups] == \
        [g.name for g in first.base.groups]
    assert {name, *(g.name for g in first.base.groups)} <= reopened.taken

    second = await opening(remote, None, example=True)  # the example again: its names are taken now
    assert second is not None and second.base.name not in second.taken
    assert {r.old for r in second.renamed} >= {name}

    taken = await check_draft(remote, first.base, None, tools)  # a new one under the saved names
    assert "name-taken" in {p.code for p in taken.problems}
    assert any("is free" in issue.message for issue in taken.issues)
    assert not [p for p in (await check_draft(remote, reopened.base, name, tools)).problems
                if p.severity == "error"]  # the saved one, checked as itself: its names are its own

    reopened.base.description = "edited over the app"
    resaved = await save_draft(remote, reopened.base, name, tools)
    assert resaved.saved is not None and resaved.saved.description == "edited over the app"
    assert (await remote.get(name)).description == "edited over the app"  # type: ignore[union-attr]


async def test_a_group_tested_from_the_editor_is_heard_over_the_app(remote: RemoteEngine):
    draft, _ = from_document(ECHO)
    assert draft is not None
    heard: list[Event] = []
    stop = remote.subscribe(heard.append)
    started: set[str] = set()

    async def a_test_run_heard_to_its_end() -> bool:
        """The app's events reach a subscriber once its stream is open: test runs until one is heard."""
        if any(isinstance(e, RunFinished) and e.run_id in started for e in heard):
            return True
        record = await remote.start_document(group_alone(draft.groups[0]), {"word": "hello"})
        started.add(record.run_id)
        return False

    try:
        await wait_until(a_test_run_heard_to_its_end, "a test run's end, heard through the app", timeout=T,
                         every=0.05)
    finally:
        stop()
    ended = next(e for e in heard if isinstance(e, RunFinished) and e.run_id in started)
    record = await remote.get_run(ended.run_id)
    assert record is not None and record.status == "succeeded" and record.outputs == {"said": "hello"}
    assert {e.type for e in heard if e.run_id == ended.run_id} >= {"run.started", "tool.started", "run.finished"}


async def test_the_run_page_reads_what_it_shows_over_the_app(remote: RemoteEngine):
    await remote.create(ECHO)
    assert await inputs_of(remote, "echoes") == {"word": "string"}
    assert await inputs_of(remote, "say-it") == {"word": "string"}  # a group, run by its own name
    assert await inputs_of(remote, "nothing-of-that-name") is None
    describe = await describer(remote)
    assert describe("echo") and describe("no-such-tool") is None
    record = await remote.call("echoes", {"word": "hi"})
    assert await planned_args(remote, record) == {0: [{"value": "$args.word"}]}
