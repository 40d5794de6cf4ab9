"""Checking as the person edits, without pressing Save.

The debounce itself (`LiveCheck`) is tested with a hand-driven clock; the editor is tested with
NiceGUI's simulated user, waiting on what the page shows (`should_see` with retries), never sleeping.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import Any

from nicegui.testing import User
from support.editor import R, element, find, one_group, save, set_value
from support.ui import app_ctx
from support.waiting import within

from gui.core.sequences.validator import check_text
from gui.ui.editor.live import LiveCheck


class FakeClock:
    """Stands in for `loop.call_later`: timers fire only when the test says so."""

    def __init__(self) -> None:
        self.timers: list[FakeTimer] = []

    def call_later(self, delay: float, callback: Callable[[], None]) -> FakeTimer:
        timer = FakeTimer(delay, callback)
        self.timers.append(timer)
        return timer

    @property
    def live(self) -> list[FakeTimer]:
        return [t for t in self.timers if not t.cancelled]

    def fire(self) -> None:
        for timer in self.live:
            timer.cancelled = True
            timer.callback()


class FakeTimer:
    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        self.delay = delay
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Harness:
    def __init__(self) -> None:
        self.clock = FakeClock()
        self.checked: list[str] = []
        self.shown: list[tuple[str, int]] = []
        self.tasks: list[Coroutine[Any, Any, None]] = []
        self.started = asyncio.Event()
        self.release: asyncio.Event | None = None  # set: checks wait for it (a slow check)
        self.live: LiveCheck[int] = LiveCheck(self.check, lambda text, n: self.shown.append((text, n)),
                                              call_later=self.clock.call_later, spawn=self.tasks.append)

    async def check(self, text: str) -> int:
        self.checked.append(text)
        self.started.set()
        if self.release is not None:
            await self.release.wait()
        return len(text)

    async def settle(self) -> None:
        while self.tasks:
            await self.tasks.pop(0)


async def test_typing_checks_once_after_the_last_key_not_on_every_key() -> None:
    h = Harness()
    for text in ("{", '{"', '{"n'):
        h.live.touch(text)
    assert [t.delay for t in h.clock.live] == [0.4]  # one timer waiting, the earlier ones cancelled
    assert h.checked == []
    h.clock.fire()
    await h.settle()
    assert h.checked == ['{"n'] and h.shown == [('{"n', 3)]


async def test_text_already_checked_is_not_checked_again() -> None:
    h = Harness()
    h.live.touch("a")
    h.clock.fire()
    await h.settle()
    h.live.touch("ab")
    h.live.touch("a")  # typed and undone before the pause
    assert h.clock.live == []
    h.live.checked("abc")  # Save checked this one
    h.live.touch("abc")
    assert h.clock.live == [] and h.checked == ["a"]


async def test_a_check_overtaken_by_typing_is_not_shown() -> None:
    h = Harness()
    h.release = asyncio.Event()
    h.live.touch("old")
    h.clock.fire()
    running = asyncio.create_task(h.tasks.pop())
    await within(h.started.wait(), "the check of \"old\" to start")
    h.live.touch("newer")  # typed while "old" was being checked
    h.release.set()
    await within(running, "the check of \"old\" to end")
    assert h.checked == ["old"] and h.shown == []  # its marks would sit at the wrong characters
    h.clock.fire()
    await h.settle()
    assert h.shown == [("newer", 5)]


def test_every_problem_of_a_large_document_is_placed_in_the_text() -> None:
    tools = "".join(json.dumps({"tool": "echo", "args": {"value": f"$args.x{t}"}}) + " ; " for t in range(10))
    doc = {"name": "big", "groups": [{"name": f"g{g}", "in": {}, "tools": tools} for g in range(100)]}
    text = json.dumps(doc, indent=2)
    from gui.core.sequences import line_col, locate, scan
    problems = check_text(text).errors
    spans = scan(text)
    places = {line_col(text, locate(text, problem, spans)[0]) for problem in problems}
    assert len(problems) == 1000
    assert len(places) == 1000  # each at its own reference (the speed is measured by bench_editor.py)


async def open_text_view(user: User) -> Any:
    await one_group(user)
    user.find(marker="view-text").click()
    return element(user, "text-view")


async def test_a_mistake_typed_in_the_text_view_shows_without_saving_and_goes_when_fixed(user: User) -> None:
    editor = await open_text_view(user)
    good = editor.value
    doc = json.loads(good)
    doc["groups"][0]["timeout"] = "soon"
    broken = json.dumps(doc, indent=2)
    set_value(user, ("text-view",), broken)
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if '"timeout": "soon"' in text)
    await user.should_see(f"Line {line}, column 18", retries=R)
    assert editor.value == broken  # what the person typed is untouched
    marks = [d for d in editor.decorations if d["kind"] == "mark"]
    assert [m["class"] for m in marks] == ["seqdesk-mark-error"]
    assert broken[marks[0]["from"]:marks[0]["to"]] == '"soon"'
    assert element(user, "problems").text == "1 problem"

    set_value(user, ("text-view",), good)
    await user.should_see(marker="text-clean", retries=R)
    await user.should_not_see(marker="text-problem", retries=R)
    await user.should_not_see(marker="problems", retries=R)
    assert editor.decorations == []
    assert await app_ctx().engine.list_sequences() == []  # checking is not saving


async def test_an_unknown_tool_typed_in_the_text_view_is_a_warning_not_an_error(user: User) -> None:
    editor = await open_text_view(user)
    doc = json.loads(editor.value)
    doc["groups"][0]["tools"] = '{"tool": "no_such_tool"} ;'
    set_value(user, ("text-view",), json.dumps(doc, indent=2))
    await user.should_see(marker="text-warning", retries=R)
    await user.should_not_see(marker="text-error")
    assert {d["class"] for d in editor.decorations} >= {"seqdesk-mark-warning", "seqdesk-line-warning"}
    assert "seqdesk-mark-error" not in {d["class"] for d in editor.decorations}
    assert element(user, "problems").text == "1 warning"


async def test_the_problem_pill_follows_fixes_in_the_visual_view(user: User) -> None:
    await one_group(user)
    find(user, "group-1", "group-timeout").type("0")
    set_value(user, ("group-1", "group-name"), "")
    await save(user)
    await user.should_see("2 problems", marker="problems", retries=R)
    set_value(user, ("group-1", "group-name"), "g1")
    await user.should_see("1 problem", marker="problems", retries=R)
    assert element(user, "problems").text == "1 problem"
    set_value(user, ("group-1", "group-timeout"), 5)
    await user.should_not_see(marker="problems", retries=R)


async def test_a_problem_found_live_in_the_text_is_counted_after_switching_to_visual(user: User) -> None:
    editor = await open_text_view(user)
    doc = json.loads(editor.value)
    doc["groups"][0]["name"] = ""
    set_value(user, ("text-view",), json.dumps(doc, indent=2))
    await user.should_see(marker="text-error", retries=R)
    user.find(marker="view-visual").click()
    await user.should_see("1 problem", marker="problems", retries=R)
    await user.should_see("1 problem", marker="group-problems", retries=R)  # the visual re-check ran
    set_value(user, ("group-1", "group-name"), "g1")
    await user.should_not_see(marker="problems", retries=R)
