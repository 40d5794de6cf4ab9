"""Trace: which `gui/` files saving a sequence from the editor passes through, in order (issue 23, path 1).

Run it with pytest (tests/bench is left out of the suite):
`python -m pytest -q -s -o addopts="-p nicegui.testing.user_plugin" tests/bench/trace_editor_save.py`.

While the editor's `save` runs (its own task and the worker threads it starts: other tasks of the page
are not its path), `sys.setprofile` sees every call. A file is *entered* when a call crosses into it from
another file (a coroutine resuming after an await is not a new entry). The sequence format
(`gui/core/sequences/`: parser, validator, export) counts as one stop, entered through its face, and so
does the wording (`gui/i18n/`); what the listeners of a published event do is theirs, not the path's.

Each call the editor's controller (`SequenceEditor`) makes into another file starts a *trip*.
Printed: every file entered (raw, and as stops), each trip with the files it entered in order, the trips
that went through the door (`gui/core/door/`), the files those door trips entered (the path to the store
and back), the files entered by more than one door trip (the path going back and forth), and how many
times the validator ran. Five saves: a new sequence and a saved one edited, from the visual and from the
text view; and one refused (its name is taken).
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from nicegui.testing import User

ROOT = Path(__file__).resolve().parents[2]
GUI = str(ROOT / "gui") + "/"
STOPS = ("gui/core/sequences/", "gui/i18n/")  # one stop each: their insides are not the path
# The editor's controller, `SequenceEditor` (its Text tab was a mixin in text_mode.py before issue 23).
CONTROLLER = ("gui/ui/editor/view.py", "gui/ui/editor/text_mode.py")
R = 50
SAVING = contextvars.ContextVar("saving", default=False)


def _short(filename: str) -> str | None:
    return filename[len(str(ROOT)) + 1:] if filename.startswith(GUI) else None


def _stop(short: str) -> str:
    return next((s for s in STOPS if short.startswith(s)), short)


class Trace:
    def __init__(self) -> None:
        self.raw: list[str] = []
        self.trips: dict[int, tuple[str, list[str]]] = {}  # the controller's call → (its name, stops entered)
        self.validations = 0
        self._last_trip: int | None = None
        self._roots: dict[int, int] = {}  # a worker thread's first frame → the trip that started it
        self._frames: dict[int, FrameType] = {}  # frames seen (kept alive so ids stay theirs)
        self.lock = threading.Lock()

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or not SAVING.get():
            return
        short = _short(frame.f_code.co_filename)
        if short is None:
            return
        with self.lock:
            if id(frame) in self._frames:  # a coroutine resuming
                return
            self._frames[id(frame)] = frame
        chain: list[tuple[str, FrameType]] = []  # the gui frames on the stack, nearest first
        back = frame.f_back
        while back is not None:
            name = _short(back.f_code.co_filename)
            if name is not None:
                if name == "gui/core/events.py" and back.f_code.co_name == "publish":
                    return  # a listener of a published event
                chain.append((name, back))
            back = back.f_back
        caller = chain[0][0] if chain else None
        if short == caller:
            return
        with self.lock:
            if short.endswith("sequences/validator.py") and frame.f_code.co_name == "check_document":
                self.validations += 1
            self.raw.append(short)
            if caller is not None and _stop(caller) in STOPS:
                return  # inside a stop
            stop = _stop(short)
            if caller is not None and _stop(caller) == stop:
                return
            if short in CONTROLLER and (caller is None or caller in CONTROLLER):
                return
            outer = [(n, f) for n, f in reversed(chain) if n not in CONTROLLER] + [(short, frame)]
            if not chain:  # a worker thread's first call: part of the trip that started it
                trip = self._last_trip
                if trip is not None:
                    self._roots[id(frame)] = trip
            elif id(outer[0][1]) in self._roots:
                trip = self._roots[id(outer[0][1])]
            else:
                trip = id(outer[0][1])
                if trip not in self.trips:
                    self.trips[trip] = (f"{Path(outer[0][0]).stem}.{outer[0][1].f_code.co_name}", [])
            if trip is None:
                return
            self._last_trip = trip
            self.trips[trip][1].append(stop)

    def report(self, title: str) -> str:
        raw = list(dict.fromkeys(self.raw))
        every = list(dict.fromkeys(s for _, stops in self.trips.values() for s in stops))
        door = [(name, stops) for name, stops in self.trips.values()
                if any(s.startswith("gui/core/door/") for s in stops)]
        door_files = list(dict.fromkeys(s for _, stops in door for s in stops))
        counts = {f: sum(1 for _, stops in door if f in stops) for f in door_files}
        again = [f for f, n in counts.items() if n > 1]
        lines = [f"== {title}",
                 f"raw: {len(raw)} gui files entered; as stops: {len(every)} (the controller's trips)",
                 f"door trips: {len(door)} ({', '.join(n for n, _ in door)}); their files: {len(door_files)}, "
                 f"entered by more than one: {len(again)}; validator ran {self.validations}x"]
        lines += [f"  {n:2}. {name}" for n, name in enumerate(door_files, 1)]
        if again:
            lines.append("  entered by more than one door trip: " + ", ".join(again))
        for name, stops in self.trips.values():
            steps = [s for n, s in enumerate(stops) if n == 0 or stops[n - 1] != s]
            lines.append(f"  trip {name}: " + " > ".join(Path(s).stem for s in steps))
        return "\n".join(lines)


_trace: list[Trace] = []


async def traced(title: str, action: Callable[[], Awaitable[None]]) -> str:
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(thread_name_prefix="traced"))
    trace = Trace()
    threading.setprofile(trace)
    sys.setprofile(trace)
    try:
        await action()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return trace.report(title)


@pytest.fixture(autouse=True)
async def engine_open(user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    from nicegui import app

    from gui.app import context_of
    from gui.ui.editor.view import SequenceEditor

    original = SequenceEditor.save

    async def save(self: SequenceEditor) -> None:
        SAVING.set(True)  # this task's context only (and the worker threads it starts)
        await original(self)

    monkeypatch.setattr(SequenceEditor, "save", save)
    await context_of(app).wait_open(timeout=5)


async def _new_one(user: User, name: str) -> None:
    from nicegui.testing.user_interaction import UserInteraction

    await user.open("/sequences/new")
    await user.should_see(marker="add-first-group", retries=R)
    user.find(marker="seq-name").type(name)
    user.find(marker="add-first-group").click()
    with user.scope(marker="group-1"):
        user.find(marker="group-name").type(f"{name}-g")
        user.find(marker="add-tool").click()
    await user.should_see(marker="palette-echo", retries=R)
    user.find(marker="palette-echo").click()
    with user.scope(marker="group-1"), user.scope(marker="tool-1"):
        await user.should_see(marker="arg-value-value", retries=R)
        UserInteraction(user, user.find(marker="arg-value-value").elements, None).type("hi")


def _save(user: User, expect: str) -> Callable[[], Awaitable[None]]:
    async def action() -> None:
        with user.client:
            for note in list(user.notify.messages):
                user.notify.messages.remove(note)
        user.find(marker="save").click()
        await user.should_see(expect, retries=R)

    return action


def _text_view(user: User) -> Any:
    user.find(marker="view-text").click()
    return next(iter(user.find(marker="text-view").elements))


async def test_trace_saving_from_the_editor(user: User) -> None:
    from nicegui import app

    from gui.app import context_of

    engine = context_of(app).engine
    reports = []
    await _new_one(user, "s1")
    reports.append(await traced("new sequence, visual view", _save(user, "Saved 's1'")))
    with user.client:
        next(iter(user.find(marker="seq-description").elements)).value = "more"
    reports.append(await traced("saved sequence edited, visual view", _save(user, "Saved 's1'")))
    assert (await engine.get("s1")).description == "more"  # type: ignore[union-attr]
    text = _text_view(user)
    await user.should_see(marker="text-view", retries=R)
    with user.client:
        text.value = text.value.replace('"more"', '"more still"')
    reports.append(await traced("saved sequence edited, text view", _save(user, "Saved 's1'")))
    assert (await engine.get("s1")).description == "more still"  # type: ignore[union-attr]
    await _new_one(user, "s2")
    _text_view(user)
    await user.should_see(marker="text-view", retries=R)
    reports.append(await traced("new sequence, text view", _save(user, "Saved 's2'")))
    assert await engine.get("s2") is not None
    await _new_one(user, "s1")
    reports.append(await traced("new sequence, its name taken (refused)", _save(user, "1 problem")))
    print("\n\n" + "\n\n".join(reports))
