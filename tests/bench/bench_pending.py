"""Requests waiting on a data folder: does a new request (or an answer) cost more when many wait, how
long does closing take with many waiting runs, and how much memory does each waiting one hold?

Targets (issue 24): a new request and an answer cost the same (± 1.5×) with 10 and with 10,000
waiting; closing with 10,000 waiting runs ≤ 2 s; memory per waiting request ≤ 15 KB.

Run: python tests/bench/bench_pending.py [--part request,memory,floor,close] [--waiting 10,1000,10000]
         [--runs 10000] [--repeat 1] [--memory-runs 10000] [--budget 180] [folder]
- request: one folder per size, its interactions store holding that many pending requests (written
  as the store's own file before it is opened, the same for every version of the store), and an
  `InteractionService` on it. Then ROUNDS times, taking the sizes in turn so that disk noise hits them
  alike: one `request` (stored, then announced) and one `respond` to it (stored, then the tool woken),
  each timed alone, the store's housekeeping (moving the answer to history, compaction) finished in
  between. Also a burst of BURST request+respond pairs back to back, housekeeping included, per pair.
- close: an engine on a data folder (`open_store_runtime`), `--runs` runs each waiting for one
  approval, then the time of `runtime.close()` (the engine ends every run and request, the stores
  close), wall and CPU. Starting the runs stops after `--budget` seconds; the figure says how many
  were waiting. `--repeat` closes, each on a fresh folder, give a median and quartiles. After each,
  the next open (what a close left hot, the open moves to history). `floor`: the same with the
  engine in memory, for the engine's own share.
- memory: traced memory (tracemalloc) held per waiting run (its run and its request) once
  `--memory-runs` wait, on a data folder and in memory, each also with a team's step (its request says
  who answers, the host, who started the run, and when it ends: 19 fields given, against 15), and what
  the interactions store holds per pending request at open.
Each figure is printed with the load average (`uptime`) at the time: the machine may be shared.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from gui.core.asks import ApprovalResponse, InteractionRecord, InteractionService, ShellApprovalRequest, ToolSource
from gui.memory import MemoryStores
from gui.runtime import Runtime, compose_engine, open_store_runtime
from gui.store.open import Stores, open_stores
from gui.tools import default_registry

ROUNDS = 25
BURST = 100
APPROVED = ApprovalResponse(decision="approved")
CLOSE_LIMIT = 120.0  # seconds: a close still running after this is reported as such


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def request(n: int | str, run: str = "run-bench") -> ShellApprovalRequest:
    """An approval as a `cmd_run` step asks it (about 1 KB stored)."""
    return ShellApprovalRequest(
        interaction_id=f"req-{n}", turn_id=run, created_at=int(time.time() * 1000),
        source=ToolSource(tool_call_id=f"call-{n}", tool_name="cmd_run"), sequence_name="nightly-build",
        group_name="deploy", step_fingerprint="f" * 16, sequence_identity="i" * 16,
        title="Run a command", command="make deploy TARGET=staging", cwd="/srv/app",
        reason="the sequence's deploy step", operation="exec", bound_inputs={"target": "staging"},
        tool_input={"command": "make deploy TARGET=staging", "cwd": "/srv/app"},
    )


def seed(folder: Path, waiting: int) -> None:
    """`waiting` pending requests in the interactions store's file, as the store writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    docs = {f"seed-{n}": InteractionRecord(request=request(f"seed-{n}", f"run-{n}")).model_dump(mode="json")
            for n in range(waiting)}
    for doc_id, doc in docs.items():
        doc["request"]["interaction_id"] = doc_id
    (folder / "interactions.json").write_text(json.dumps({"interactions": docs}, separators=(",", ":")))


async def settled(stores: Stores) -> None:
    """Wait until the store's writer has nothing left to do (housekeeping included)."""
    for _ in range(2):  # housekeeping may queue more housekeeping (a compaction after a move)
        await asyncio.wrap_future(stores.writer.submit_later(lambda: None))


async def timed(call: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await call()
    return time.perf_counter() - start


def spread(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    quart = statistics.quantiles(ms, n=4)
    return (f"median {statistics.median(ms):7.3f} ms  (quartiles {quart[0]:.3f}–{quart[2]:.3f}, "
            f"min {ms[0]:.3f}, max {ms[-1]:.3f}, n={len(ms)})")


async def request_and_answer(base: Path, sizes: list[int]) -> None:
    print(f"\n== a new request and an answer, by how many wait ({load()})")
    services: dict[int, tuple[Stores, InteractionService]] = {}
    for size in sizes:
        folder = base / f"waiting-{size}"
        seed(folder, size)
        start = time.perf_counter()
        stores = await open_stores(folder)
        opened = time.perf_counter() - start
        await settled(stores)
        services[size] = (stores, InteractionService(stores.interactions, modes=stores.modes))
        print(f"  {size:>6} waiting: store opened in {opened * 1000:.0f} ms ({load()})")
    asked: dict[int, list[float]] = {size: [] for size in sizes}
    answered: dict[int, list[float]] = {size: [] for size in sizes}
    counter = 0
    for round_ in range(ROUNDS + 2):
        for size, (stores, service) in services.items():
            counter += 1
            req = request(counter)
            took = await timed(lambda s=service, r=req: s.request(r))  # type: ignore[misc]
            await settled(stores)
            took_answer = await timed(lambda s=service, i=req.interaction_id: s.respond(i, APPROVED))  # type: ignore[misc]
            await settled(stores)
            if round_ >= 2:  # the first two warm up
                asked[size].append(took)
                answered[size].append(took_answer)
    for size in sizes:
        print(f"  {size:>6} waiting: new request {spread(asked[size])}")
        print(f"  {size:>6} waiting: answer      {spread(answered[size])}  ({load()})")
    for size, (stores, service) in services.items():
        start = time.perf_counter()
        for _ in range(BURST):
            counter += 1
            req = request(counter)
            await service.request(req)
            await service.respond(req.interaction_id, APPROVED)
        await settled(stores)
        pair = (time.perf_counter() - start) / BURST
        print(f"  {size:>6} waiting: {BURST} request+answer pairs back to back, with the housekeeping queued by "
              f"then: {pair * 1000:.3f} ms a pair ({load()})")
    small, large = min(sizes), max(sizes)
    for what, samples in (("new request", asked), ("answer", answered)):
        ratio = statistics.median(samples[large]) / statistics.median(samples[small])
        verdict = "OK" if ratio <= 1.5 else "MISSED"
        print(f"  {what}: median with {large} waiting / with {small} = {ratio:.2f} (target ≤ 1.5: {verdict})")
    for stores, _ in services.values():
        stores.close()


SEQUENCE = {"name": "wait-for-me", "groups": [
    {"name": "ask", "tools": json.dumps({"tool": "cmd_run", "args": {"command": "true"}}) + " ;"}]}
# A team's step: who answers (`asking`: two of a role must approve, within a day) and the host it runs on once
# approved (`host`), in a run a person started (`started_by`): its request holds all three, and its end.
HOST = "node-a"
STARTER = "alice"
TEAM_SEQUENCE = {"name": "wait-for-me", "groups": [
    {"name": "ask", "approvers": ["role:ops"], "required": 2, "expire_after": "24h",
     "tools": json.dumps({"tool": "cmd_run", "args": {"command": "true"}, "on": HOST}) + " ;"}]}


async def known_hosts() -> frozenset[str]:
    return frozenset({HOST})


async def waiting_runs(folder: Path | None, runs: int, budget: float, sequence: dict[str, Any] = SEQUENCE,
                       started_by: str | None = None) -> tuple[Any, int, float]:
    """A runtime on `folder` (None: the engine in memory) with up to `runs` runs of `sequence` waiting
    for approval (fewer if `budget` ran out), started by `started_by` (None: nobody signed in)."""
    runtime = (await open_store_runtime(folder) if folder is not None
               else Runtime(compose_engine(default_registry(), MemoryStores())))
    engine = runtime.engine
    engine.catalog.hosts = known_hosts  # a team's step names a host (never called: nothing is approved)
    await engine.create(sequence)
    waiting = 0
    arrived = asyncio.Event()

    def on_event(event: Any) -> None:
        nonlocal waiting
        if event.type == "tool.waiting":
            waiting += 1
            arrived.set()

    engine.subscribe(on_event)
    start = time.perf_counter()
    started = 0
    while started < runs and time.perf_counter() - start < budget:
        await engine.start("wait-for-me", started_by=started_by)
        started += 1
        if started - waiting > 50:  # do not run too far ahead of the requests being stored
            while started - waiting > 10:
                arrived.clear()
                await arrived.wait()
    while waiting < started:
        arrived.clear()
        await asyncio.wait_for(arrived.wait(), timeout=max(budget, 60))
    return runtime, waiting, time.perf_counter() - start


async def closing(base: Path | None, runs: int, budget: float, repeat: int = 1) -> bool:
    """The close, `repeat` times (each on a fresh folder), then the median and quartiles of wall and CPU;
    on a folder, also the next open, which moves to history what the close left hot."""
    walls: list[float] = []
    cpus: list[float] = []
    for turn in range(repeat):
        folder = base / f"closing-{turn}" if base is not None else None
        took = await closing_once(folder, runs, budget)
        if took is None:
            return False
        walls.append(took[0])
        cpus.append(took[1])
        if folder is not None:
            await next_open(folder)
    if repeat > 1:
        for what, values in (("wall", walls), ("CPU", cpus)):
            q = statistics.quantiles(values, n=4)
            print(f"  close, {what}: median {statistics.median(values):.2f} s (quartiles {q[0]:.2f}–{q[2]:.2f}, "
                  f"n={len(values)}) ({load()})")
    return True


async def next_open(folder: Path) -> None:
    """The open after the close, to its first answer, and the moves to history it then makes."""
    start, cpu = time.perf_counter(), time.process_time()
    runtime = await open_store_runtime(folder)
    opened = time.perf_counter() - start
    stores = runtime.stores
    assert stores is not None
    await settled(stores)  # the moves it queued at open, done
    print(f"  the next open: {opened:.2f} s to open, {time.perf_counter() - start:.2f} s with the moves to history "
          f"done, {time.process_time() - cpu:.2f} s of CPU ({load()})")
    await runtime.close()


async def closing_once(base: Path | None, runs: int, budget: float) -> tuple[float, float] | None:
    where = "on a data folder" if base is not None else "in memory (the engine's own share, for comparison)"
    print(f"\n== closing with many waiting runs, {where} ({load()})")
    runtime, waiting, took = await waiting_runs(base, runs, budget)
    print(f"  {waiting} runs waiting for approval after {took:.1f} s"
          f"{'' if waiting >= runs else f' (stopped at the {budget:.0f} s budget)'} ({load()})")
    start, cpu = time.perf_counter(), time.process_time()
    try:
        await asyncio.wait_for(asyncio.shield(runtime.close()), timeout=CLOSE_LIMIT)
    except TimeoutError:
        print(f"  close with {waiting} waiting: not finished after {CLOSE_LIMIT:.0f} s ({load()})")
        return None
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    verdict = "" if waiting < 10_000 or base is None else f" (target ≤ 2 s: {'OK' if took <= 2 else 'MISSED'})"
    print(f"  close with {waiting} waiting: {took:.2f} s{verdict}, {cpu:.2f} s of CPU ({load()})")
    return took, cpu


async def memory(base: Path, runs: int, store_waiting: int, budget: float) -> None:
    print(f"\n== memory per waiting request ({load()})")
    seed(base / "memory-store", store_waiting)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    stores = await open_stores(base / "memory-store")
    await settled(stores)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    print(f"  the interactions store, {store_waiting} pending at open: {held / store_waiting / 1024:.1f} KB "
          f"a pending request ({load()})")
    stores.close()

    runtime, _, _ = await waiting_runs(base / "memory-warm", 20, budget)  # imports and caches, not measured
    await runtime.close()
    team = "a team's step (asking, host, started_by)"
    cases = [(base / "memory", SEQUENCE, None, "on a data folder"), (None, SEQUENCE, None, "in memory"),
             (base / "memory-team", TEAM_SEQUENCE, STARTER, f"on a data folder, {team}"),
             (None, TEAM_SEQUENCE, STARTER, f"in memory, {team}")]
    for folder, sequence, started_by, where in cases:
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        runtime, waiting, _ = await waiting_runs(folder, runs, budget, sequence, started_by)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        per = held / waiting / 1024
        print(f"  engine {where}, {waiting} runs each waiting for one approval: {per:.1f} KB a waiting run "
              f"and its request (target ≤ 15 KB: {'OK' if per <= 15 else 'MISSED'}) ({load()})")
        try:
            await asyncio.wait_for(asyncio.shield(runtime.close()), timeout=CLOSE_LIMIT)
        except TimeoutError:
            print(f"  (closing those {waiting} runs did not finish within {CLOSE_LIMIT:.0f} s: see the close part)")
            sys.stdout.flush()
            os._exit(1)  # the store's thread is still closing: do not wait for it


async def main(args: argparse.Namespace) -> None:
    base = Path(args.folder) if args.folder else Path(tempfile.mkdtemp(prefix="seqdesk-bench-pending-"))
    parts = args.part.split(",")
    print(f"bench_pending on {base} ({load()}, {os.cpu_count()} cores)")
    if "request" in parts:
        await request_and_answer(base, [int(n) for n in args.waiting.split(",")])
    if "memory" in parts:
        await memory(base, args.memory_runs, 10_000, args.budget)
    if "floor" in parts:
        await closing(None, args.runs, args.budget, args.repeat)
    if "close" in parts and not await closing(base, args.runs, args.budget, args.repeat):
        sys.stdout.flush()
        os._exit(1)  # the store's thread is still closing: do not wait for it


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", help="where the data folders go (default: a temporary folder)")
    parser.add_argument("--part", default="request,memory,close")
    parser.add_argument("--waiting", default="10,1000,10000")
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=1, help="closes to time (close, floor), each on a fresh folder")
    parser.add_argument("--memory-runs", type=int, default=10_000)
    parser.add_argument("--budget", type=float, default=180.0, help="seconds to start waiting runs at most")
    asyncio.run(main(parser.parse_args()))
