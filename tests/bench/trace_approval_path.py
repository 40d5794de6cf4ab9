"""The files a tool's approval crosses, from the runner to the stored answer (issue 23's figure).

Run: PYTHONPATH=. python tests/bench/trace_approval_path.py [--tinydb]
One `cmd_run` step asks; the person approves it. `sys.setprofile` records every gui/ file entered
(a fresh call whose nearest gui/ caller is in another file; a coroutine resuming is not a call)
while the run's task is in `ToolCaller._approve` and while `Engine.respond` stores the answer.
It prints the files in order, how many there are (the runner, where the path starts, included),
the files entered more than once, and the calls back into a module that called it.

What only reports on the approval is entered but not followed (the rule `bench_elicitation_path.py`
follows too): an announcement on the event bus (`EventBus.publish`: its listeners redraw lists and
notify) and the run's "waiting for you" marks (`ToolCaller.waiting`/`resumed`: the tool's record
marked waiting, the run's record saved soon). The file of such a call counts; what it calls does not.
On TinyDB, what the path hands the store's writer thread (a write or a read it waits for) is traced
there too; housekeeping nobody waits for is not.
"""

from __future__ import annotations

import asyncio
import contextvars
import dis
import inspect
import sys
import tempfile
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GUI = str(ROOT / "gui") + "/"
_window: contextvars.ContextVar[asyncio.Task[Any] | None] = contextvars.ContextVar("window", default=None)
# work the window handed the store's writer thread (`gui.store.writer`, on TinyDB): traced there too
_handed: contextvars.ContextVar[bool] = contextvars.ContextVar("handed", default=False)
# what only reports (entered, not followed): the same set as `bench_elicitation_path.py`'s QUIET
QUIET = {("gui/core/events.py", "publish"), ("gui/core/runs/tool_call.py", "waiting"),
         ("gui/core/runs/tool_call.py", "resumed")}


_RESUMABLE = inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE
_first_resume: dict[CodeType, int] = {}


def resuming(frame: FrameType) -> bool:
    """A coroutine or generator going on where it waited: no new call (its first RESUME is its start)."""
    code = frame.f_code
    if not code.co_flags & _RESUMABLE:
        return False
    if code not in _first_resume:
        _first_resume[code] = min(i.offset for i in dis.get_instructions(code) if i.opname == "RESUME")
    return frame.f_lasti > _first_resume[code]


def short(path: str) -> str:
    return path[len(str(ROOT)) + 1:]


class Trace:
    def __init__(self) -> None:
        self.entries: list[tuple[str | None, str, bool]] = []  # (caller file, entered file, already on the stack)
        self.names: list[str] = []  # the function entered, for each entry
        self.quiet: FrameType | None = None  # a reporting call under way: its callees are not recorded

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.quiet is not None:
            if event == "return" and frame is self.quiet:
                self.quiet = None
            return
        if event != "call" or not frame.f_code.co_filename.startswith(GUI):
            return
        if not _handed.get():
            try:
                task = asyncio.current_task()
            except RuntimeError:
                return
            if task is None or _window.get() is not task:
                return
        if resuming(frame):
            return
        here = frame.f_code.co_filename
        caller = frame.f_back
        while caller is not None and not caller.f_code.co_filename.startswith(GUI):
            caller = caller.f_back
        source = caller.f_code.co_filename if caller is not None else None
        if source != here:
            above = set()
            while caller is not None:
                above.add(caller.f_code.co_filename)
                caller = caller.f_back
            self.entries.append((short(source) if source else None, short(here), here in above))
            self.names.append(frame.f_code.co_qualname)
        if (short(here), frame.f_code.co_name) in QUIET:
            self.quiet = frame

    def start(self, first: str) -> None:
        self.entries.append((None, first, False))
        self.names.append("")


async def main(tinydb: bool) -> None:
    from gui.core.door import Engine
    from gui.core.events import InteractionCreated
    from gui.core.runs import tool_call
    from gui.store.writer import LATER, Writer

    trace = Trace()
    approve = tool_call.ToolCaller._approve
    respond = Engine.respond

    async def traced_approve(self: Any, *args: Any, **kwargs: Any) -> Any:
        token = _window.set(asyncio.current_task())
        trace.start("gui/core/runs/runner.py")
        trace.start("gui/core/runs/tool_call.py")
        try:
            return await approve(self, *args, **kwargs)
        finally:
            _window.reset(token)

    async def traced_respond(self: Any, *args: Any, **kwargs: Any) -> Any:
        token = _window.set(asyncio.current_task())
        try:
            return await respond(self, *args, **kwargs)
        finally:
            _window.reset(token)

    def submit(writer: Any, lane: int, call: Any) -> Any:
        """What the window hands the writer thread runs traced: the record and its entry in the record of
        decisions are stored there while the path waits (in memory the same work is on the path itself).
        Housekeeping nobody waits for (`submit_later`) is left out."""
        try:
            inside = _window.get() is asyncio.current_task() and _window.get() is not None
        except RuntimeError:
            inside = False
        if not inside or lane == LATER or trace.quiet is not None:  # (nor what a reporting call hands over)
            return original_submit(writer, lane, call)
        return original_submit(writer, lane, lambda: contextvars.copy_context().run(handed, call))

    def handed(call: Any) -> Any:
        _handed.set(True)
        sys.setprofile(trace.profile)  # (the writer thread was started before the trace)
        try:
            return call()
        finally:
            sys.setprofile(None)

    original_submit = Writer._submit
    Writer._submit = submit  # type: ignore[method-assign]
    tool_call.ToolCaller._approve = traced_approve  # type: ignore[method-assign]
    Engine.respond = traced_respond  # type: ignore[method-assign]

    folder = Path(tempfile.mkdtemp()) if tinydb else None
    runtime = await open_engine(folder)
    engine = runtime.engine
    asked: asyncio.Queue[str] = asyncio.Queue()
    engine.subscribe(lambda e: asked.put_nowait(e.interaction_id) if isinstance(e, InteractionCreated) else None)
    call = '{"tool": "cmd_run", "args": {"command": "echo hi"}} ;'
    await engine.create({"name": "s", "description": "", "groups": [{"name": "g", "tools": call}]})
    for _ in range(2):  # the first round imports lazily and fills caches: the second is measured
        trace.entries.clear()
        trace.names.clear()
        sys.setprofile(trace.profile)
        try:
            run = await engine.start("s", {})
            iid = await asyncio.wait_for(asked.get(), 10)
            await engine.respond(iid, {"kind": "approval", "decision": "approved"})
            record = await engine.runner.wait(run.run_id, 10)
        finally:
            sys.setprofile(None)
        assert record.status == "succeeded", record.error
    await runtime.close()
    report(trace.entries, trace.names)


async def open_engine(folder: Path | None) -> Any:
    from gui.runtime import open_runtime
    return await open_runtime(folder, memory=folder is None)


def report(entries: list[tuple[str | None, str, bool]], names: list[str]) -> None:
    order: list[str] = []
    counts: dict[str, int] = {}
    edges: list[tuple[str, str]] = []
    backs: list[tuple[str, str]] = []
    again: list[tuple[str | None, str]] = []
    for source, here, on_stack in entries:
        counts[here] = counts.get(here, 0) + 1
        if here not in order:
            order.append(here)
        if on_stack and (source, here) not in again:
            again.append((source, here))
        if source is not None:
            if (here, source) in edges and (source, here) not in backs:
                backs.append((source, here))
            edges.append((source, here))
    print("entered, in order:")
    for (source, here, on_stack), name in zip(entries, names, strict=True):
        print(f"  {source or '-'} -> {here} {name}" + ("   <- already on the stack" if on_stack else ""))
    print(f"\nfiles: {len(order)}")
    for name in order:
        print(f"  {name}" + (f"  (entered {counts[name]} times)" if counts[name] > 1 else ""))
    print(f"files entered again while on the stack (A -> B -> A): {len({h for _, h in again})}")
    for source, here in again:
        print(f"  {source} -> {here}")
    print(f"calls back into a module that called this one: {len(backs)}")
    for source, here in backs:
        print(f"  {source} -> {here}")


if __name__ == "__main__":
    asyncio.run(main("--tinydb" in sys.argv))
