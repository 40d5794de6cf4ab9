"""The files of `gui/` an MCP form passes through, in order, from the server's request to its result.

A script, not a test: `python tests/bench/bench_elicitation_path.py [--tinydb] [--approval]`. NiceGUI's user
simulation runs `gui/main.py` in memory (on the in-memory stores, or with `--tinydb` on a fresh data
folder); the app's own MCP manager connects `tests/mcp/elicit_server.py` (a real server
over stdio); a run calls its `order` tool, which asks for a form; the inbox draws it (`/inbox/<id>`),
the person fills it in and sends it through the engine, and the server gets its answer.

`sys.setprofile` records each function entered in a `gui/` file, but only on the form's own path:

- `server`: the SDK's elicitation callback and every task it starts (a context variable marks them),
  up to the inbox; then again from the stored answer back to the server's result;
- `form`: the inbox's form being built from the stored request (the page frame around it is not
  the form's path and is left out);
- `person`: the Send click, through the engine, until the answer is stored.

What only reports on the form is entered but not followed (the rule `trace_approval_path.py`
follows too: the file of such a call counts, what it calls does not): an announcement on the event
bus (`EventBus.publish`: its listeners redraw lists and notify), the run's "waiting for you" marks
(`ToolCaller.waiting`/`resumed`), and the page's feedback once the engine has stored the answer.
The run record saved in the background is left out altogether.

Each way is counted on its own: the request (`server`, then `form`) and the answer (`person`, then
`server, back`). For each: the files in the order they are first entered, how many, and the calls
that go back: from a file into one entered before it on the same way (a callback, the path going
back and forth). Calls into the files the path already crossed from above (a helper called twice)
are not going back; "entered more than once" counts every new call into a file after the path has
left it, helpers included. A coroutine resuming (the answer travelling back up the frames that
awaited it) shows the file on the path but is not a new entry.

The last line counts the span `trace_approval_path.py` counts for an approval (the tool asking to the
answer stored, both ways, without the inbox page), so the form and the approval are held to one measure.

`--approval` walks a command's approval the same way, for comparison (`trace_approval_path.py` counts
only the core's part of it): `server` is then the run asking (`ToolCaller._approve`) and, once the
person has answered, the run going on with the answer; `form` the inbox's command card being built;
`person` the Approve click, until the answer is stored.

On TinyDB, what the path hands the store's writer thread (a write, or a read it waits for) is
followed there, in the phase that handed it over: the record and its entry in the record of
decisions are stored there while the path waits, as in memory they are stored on the path itself.
Each way's count says how many of its files are the store's own (`gui/memory`, `gui/store`,
`gui/atomic.py`: under the core's store ports) and how many are above it.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
GUI = str(ROOT / "gui") + os.sep
GUI_PREFIX = "gui/"
DOOR = "gui/core/door/engine.py"
SERVER = [str(ROOT / "tests" / "mcp" / "elicit_server.py")]
T = 20.0

PHASE: contextvars.ContextVar[str | None] = contextvars.ContextVar("bench_phase", default=None)
# (phase, file, the gui file that called it, whether the frame was new: not a coroutine resuming), repeats folded
visits: list[tuple[str, str, str | None, bool]] = []
_started: dict[int, FrameType] = {}  # every frame seen: a later "call" of the same frame is a coroutine resuming
_quiet: dict[int, FrameType] = {}  # per thread: the call whose callees are not recorded
QUIET = {("gui/core/events.py", "publish"), ("gui/core/runs/tool_call.py", "waiting"),
         ("gui/core/runs/tool_call.py", "resumed")}
# the run record saved in the background (its task, and the callback that forgets the task once it has
# saved: the loop runs it in the task's context, which is the form's): neither entered nor followed
SKIP = {("gui/core/runs/execution.py", "later"), ("gui/core/runs/execution.py", "<lambda>"),
        ("gui/core/runs/execution.py", "_saved")}
# the store's implementation, under the core's store ports: one file in memory, the storage engine on TinyDB
STORAGE = ("gui/memory/", "gui/store/", "gui/atomic.py")
answered = threading.Event()  # set at the Send click: later `server` visits are the way back
stored = threading.Event()  # set when the engine has stored the answer: the page's feedback follows


def _gui(path: str) -> str | None:
    return os.path.relpath(path, ROOT) if path.startswith(GUI) else None


def _profile(frame: FrameType, event: str, arg: Any) -> None:
    phase = PHASE.get()
    if phase is None:
        return
    me = threading.get_ident()
    quiet = _quiet.get(me)
    if quiet is not None:
        if event == "return" and frame is quiet:
            del _quiet[me]
        return
    if event != "call":
        return
    rel = _gui(frame.f_code.co_filename)
    if rel is None or (phase == "person" and stored.is_set()):
        return
    if phase == "server" and answered.is_set():
        phase = "server, back"
    if (rel, frame.f_code.co_name) in SKIP:
        _quiet[me] = frame
        return
    caller, up = None, frame.f_back
    while up is not None and caller is None:
        caller = _gui(up.f_code.co_filename)
        up = up.f_back
    new = id(frame) not in _started
    _started[id(frame)] = frame
    entry = (phase, rel, caller, new)
    if not visits or visits[-1] != entry:
        visits.append(entry)
    if (rel, frame.f_code.co_name) in QUIET:
        _quiet[me] = frame


def _mark_the_servers_requests() -> None:
    """The SDK's `Client` hands its elicitation callback a marked context: everything it starts is traced."""
    import mcp

    original = mcp.Client.__init__

    def init(self: Any, *args: Any, elicitation_callback: Callable[..., Awaitable[Any]] | None = None,
             **kwargs: Any) -> None:
        if elicitation_callback is not None:
            inner = elicitation_callback

            async def traced(*a: Any) -> Any:
                token = PHASE.set("server")
                try:
                    return await inner(*a)
                finally:
                    PHASE.reset(token)

            elicitation_callback = traced
        original(self, *args, elicitation_callback=elicitation_callback, **kwargs)

    mcp.Client.__init__ = init  # type: ignore[method-assign]


def _mark_the_answer_stored() -> None:
    from gui.core.door.engine import Engine

    original = Engine.respond

    async def respond(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await original(self, *args, **kwargs)
        finally:
            stored.set()

    Engine.respond = respond  # type: ignore[method-assign]


def _follow_the_store_writer() -> None:
    """(`--tinydb`) What the path hands the store's writer thread (`gui.store.writer`) runs in the phase
    that handed it over: the record and its entry in the record of decisions are stored there, and the
    path waits for them (in memory the same work is done on the path itself, and is counted).
    Housekeeping nobody waits for (`submit_later`: ended records moved to history) is left out."""
    from gui.store.writer import LATER, Writer

    original = Writer._submit

    def submit(self: Any, lane: int, call: Callable[[], Any]) -> Any:
        phase = PHASE.get()
        if phase is None or lane == LATER or threading.get_ident() in _quiet:
            return original(self, lane, call)  # (what a call left out or only entered hands over: not followed)
        return original(self, lane, lambda: contextvars.copy_context().run(_in_phase, phase, call))

    Writer._submit = submit  # type: ignore[method-assign]


def _in_phase(phase: str, call: Callable[[], Any]) -> Any:
    """`call` on the writer thread, traced (the thread was started before `threading.setprofile`)."""
    PHASE.set(phase)
    sys.setprofile(_profile)
    try:
        return call()
    finally:
        sys.setprofile(None)


def _mark_the_run_asking() -> None:
    """(`--approval`) The run's approval, asked and waited for, is traced as the server's form is."""
    from gui.core.runs.tool_call import ToolCaller

    original = ToolCaller._approve

    async def approve(self: Any, *args: Any, **kwargs: Any) -> Any:
        token = PHASE.set("server")
        try:
            return await original(self, *args, **kwargs)
        finally:
            PHASE.reset(token)

    ToolCaller._approve = approve  # type: ignore[method-assign]


def _mark_the_form(approval: bool = False) -> None:
    from gui.ui.components.inbox.elicitation_form import ElicitationForm
    from gui.ui.components.inbox.shell_card import ShellApprovalCard

    card: Any = ShellApprovalCard if approval else ElicitationForm
    original = card.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        token = PHASE.set("form")
        try:
            original(self, *args, **kwargs)
        finally:
            PHASE.reset(token)

    card.__init__ = init


async def scenario(tinydb: bool = False, approval: bool = False) -> dict[str, Any]:
    from nicegui import app
    from nicegui.storage import Storage
    from nicegui.testing.user_simulation import user_simulation

    from gui.app import context_of
    from gui.mcp import McpServerConfig

    if tinydb:
        os.environ.pop("SEQDESK_MEMORY", None)
        os.environ["SEQDESK_DATA"] = tempfile.mkdtemp(prefix="seqdesk-bench-data-")
        os.environ.setdefault("SEQDESK_NO_DIALOG", "1")
    else:
        os.environ["SEQDESK_MEMORY"] = "1"
    os.environ.setdefault("PYTEST_CURRENT_TEST", "bench_elicitation_path.py::scenario")
    Storage.path = Path(tempfile.mkdtemp(prefix="seqdesk-bench-storage-"))
    app.storage = Storage()
    async with user_simulation(main_file=ROOT / "gui" / "main.py") as user:
        ctx = context_of(app)
        await ctx.wait_open(10)
        engine, runtime = ctx.engine, ctx.runtime
        assert runtime is not None and runtime.mcp is not None
        if approval:
            step: dict[str, Any] = {"tool": "cmd_run", "args": {"command": "echo hi"}, "as": "r"}
        else:
            conn = await runtime.mcp.add(McpServerConfig(name="elicit", command=sys.executable, args=SERVER))
            state = await conn.wait_for("connected", "down", timeout=T)
            assert state.status == "connected", state.last_error
            step = {"tool": "elicit.order", "args": {"item": "tea"}, "as": "r"}
        await engine.create({"name": "shop", "groups": [
            {"name": "shop-g", "in": {}, "out": {"r": "string" if approval else "object"},
             "tools": json.dumps(step) + " ;"}]})
        if not approval:
            engine.modes.set("elicit.order", "always-allow")
        loop = asyncio.get_running_loop()
        asked: asyncio.Future[str] = loop.create_future()

        def on_event(event: Any) -> None:
            kind = "approval" if approval else "elicitation"
            if event.type == "interaction.created" and event.data.get("kind") == kind and not asked.done():
                asked.set_result(event.data["interaction_id"])

        engine.bus.subscribe(on_event)
        sys.setprofile(_profile)
        threading.setprofile(_profile)
        try:
            record = await engine.start("shop", {})
            iid = await asyncio.wait_for(asked, T)
            await user.open(f"/inbox/{iid}")
            await user.should_see(marker="shell-approval" if approval else "elicitation-form", retries=100)
            if not approval:
                user.find(marker="field-name").type("Bo")
            answered.set()
            token = PHASE.set("person")
            try:
                user.find(marker="approve" if approval else "accept").click()
            finally:
                PHASE.reset(token)
            done = await asyncio.wait_for(engine.runner.wait(record.run_id), T)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
        assert done.status == "succeeded", done.to_summary_json()
        return {"r": done.outputs["r"]} if approval else dict(done.outputs["r"])


def report(trail: list[tuple[str, str, str | None, bool]]) -> None:
    for way, phases in (("request", ("server", "form")), ("answer", ("person", "server, back"))):
        every = [(f, c, new) for phase in phases for p, f, c, new in trail if p == phase]
        steps = [(f, c) for f, c, new in every if new]
        first: dict[str, int] = {}
        for f, _, _ in every:
            first.setdefault(f, len(first))
        back = sorted({(c, f) for f, c in steps if c is not None and c != f and c in first and first[f] < first[c]})
        stored = [f for f in first if f.startswith(STORAGE)]
        print(f"{way}: {len(first)} files ({len(first) - len(stored)} above the store, {len(stored)} the store's own: "
              f"{', '.join(f.removeprefix(GUI_PREFIX) for f in stored)})")
        for phase in phases:
            files = list(dict.fromkeys(f for p, f, _, _ in trail if p == phase))
            print(f"  {phase}: " + " > ".join(files))
        folded = [f for i, (f, _) in enumerate(steps) if i == 0 or steps[i - 1][0] != f]
        again = {f: folded.count(f) for f in first if folded.count(f) > 1}
        print(f"  entries in order: {len(folded)}; files entered more than once: {len(again)} "
              f"({', '.join(f'{f.removeprefix(GUI_PREFIX)} x{n}' for f, n in again.items())})")
        print(f"  calls going back: {len(back)}")
        for c, f in back:
            print(f"    {c} -> {f}")
    print(f"both ways: {len({f for _, f, _, _ in trail})} files")
    # the span `trace_approval_path.py` counts for an approval (issue 23's approval figure): from the tool
    # asking to the answer stored, both ways, without the inbox's page; here from the MCP handler asking
    # (`server`), the door storing the answer (`person` from `Engine.respond` on) and the way back to the
    # server's result
    door = next((i for i, (p, f, _, _) in enumerate(trail) if p == "person" and f == DOOR), len(trail))
    span = list(dict.fromkeys(f for i, (p, f, _, _) in enumerate(trail)
                              if not f.startswith("gui/ui/")  # (the page goes on awaiting the door)
                              and (p in ("server", "server, back") or (p == "person" and i >= door))))
    print(f"the tool asking to the answer stored, as trace_approval_path counts an approval (no inbox page): "
          f"{len(span)} files: " + " > ".join(f.removeprefix(GUI_PREFIX) for f in span))
    edges: list[tuple[str, str]] = []  # trace_approval_path's rule: a call from A into B after one from B into A
    backs: list[tuple[str, str]] = []
    for i, (p, f, c, new) in enumerate(trail):
        if not new or c is None or c == f or c.startswith("gui/ui/") or f.startswith("gui/ui/") \
                or not (p in ("server", "server, back") or (p == "person" and i >= door)):
            continue
        if (f, c) in edges and (c, f) not in backs:
            backs.append((c, f))
        edges.append((c, f))
    print(f"  its calls back into a file that called it (trace_approval_path's rule): {len(backs)}"
          + "".join(f"\n    {c.removeprefix(GUI_PREFIX)} -> {f.removeprefix(GUI_PREFIX)}" for c, f in backs))


def main() -> None:
    approval = "--approval" in sys.argv
    if approval:
        _mark_the_run_asking()
    else:
        _mark_the_servers_requests()
    _mark_the_form(approval)
    _mark_the_answer_stored()
    _follow_the_store_writer()
    outputs = asyncio.run(scenario("--tinydb" in sys.argv, approval))
    print(f"the server got: {outputs}")
    report(visits)


if __name__ == "__main__":
    main()
