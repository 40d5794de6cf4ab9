"""The record of decisions at 10,000 entries: how long `seqdesk audit verify` takes to prove the
chain unbroken, and whether a hand edit in the middle is found (issue 26, item 5).

Run: python tests/bench/bench_audit_verify.py [--entries 10000] [--runs 7] [folder]
- write: `--entries` decisions appended through the store's own log (`FileAuditLog` on a `Writer`,
  each line synced before it is acknowledged, as the app does), total and per decision.
- verify: the command's work, `read_documents` of the file then `verify`, `--runs` times: the median,
  min and max. Then the same with the process start: `python -m gui audit verify --data …`, median.
- edit: one line in the middle edited by hand (a decision "denied" made "approved"), `verify` again:
  the entry it names must be that one.
- answer: what recording costs an answer: `--answers` request+respond pairs on a data folder's stores
  (an `InteractionService` on `open_stores`), `respond` timed alone, with the record and without it,
  taken in turn; the medians.
Each figure is printed with the load average: the machine may be shared.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gui.core.asks import ApprovalResponse, AuditDraft, InteractionService, ShellApprovalRequest, ToolSource, verify
from gui.store.audit import FileAuditLog, audit_path, read_documents
from gui.store.open import open_stores
from gui.store.writer import Writer


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def draft(n: int) -> AuditDraft:
    return AuditDraft(at=1_764_662_400_000 + n, interaction_id=f"i{n:05d}", run_id=f"r{n // 3}",
                      sequence_name="deploy", kind="approval", decision="approved" if n % 2 else "denied",
                      by="person", person="you", via="app",
                      shown=f"Run a command\n$ rsync -a build/ host-{n}:/srv/app\nin /home/me/project")


async def write(folder: Path, count: int) -> float:
    started = time.perf_counter()
    with Writer() as writer:
        log = await FileAuditLog.open(folder, writer)
        await asyncio.gather(*(log.append(draft(n)) for n in range(count)))  # as many requests ending at once
        log.close()
    return time.perf_counter() - started


async def answers(folder: Path, count: int) -> tuple[float, float]:
    """Median `respond` time (s) with the record and without it, on one data folder's stores."""
    stores = await open_stores(folder)
    try:
        audit = await FileAuditLog.open(folder, stores.writer)
        services = {True: InteractionService(stores.interactions, modes=stores.modes, audit=audit),
                    False: InteractionService(stores.interactions, modes=stores.modes)}
        times: dict[bool, list[float]] = {True: [], False: []}
        for n in range(count):
            for recorded in (True, False):
                iid = f"b{n}-{recorded}"
                await services[recorded].request(ShellApprovalRequest(
                    interaction_id=iid, turn_id="bench", source=ToolSource(tool_call_id=iid, tool_name="cmd_run"),
                    created_at=int(time.time() * 1000), title="Run a command", command=f"echo {n}", cwd="/",
                    reason="bench", operation="exec"))
                started = time.perf_counter()
                await services[recorded].respond(iid, ApprovalResponse(decision="approved"))
                times[recorded].append(time.perf_counter() - started)
        audit.close()
        return statistics.median(times[True]), statistics.median(times[False])
    finally:
        stores.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("folder", nargs="?")
    args = parser.parse_args()
    folder = Path(args.folder or tempfile.mkdtemp(prefix="seqdesk-audit-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = audit_path(folder)
    path.unlink(missing_ok=True)

    took = asyncio.run(write(folder, args.entries))
    print(f"write: {args.entries} decisions in {took:.2f} s ({took / args.entries * 1e6:.0f} µs each), "
          f"file {path.stat().st_size / 1e6:.1f} MB  [load {load()}]")

    times = []
    for _ in range(args.runs):
        started = time.perf_counter()
        verdict = verify(read_documents(path))
        times.append(time.perf_counter() - started)
        assert verdict.ok and verdict.count == args.entries, verdict.sentence()
    print(f"verify {args.entries}: median {statistics.median(times) * 1000:.0f} ms "
          f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, {args.runs} runs)  [load {load()}]")

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parents[2]),
                                                                     os.environ.get("PYTHONPATH")]))}
    whole = []
    for _ in range(max(3, args.runs // 2)):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "gui", "audit", "verify", "--data", str(folder)],
                              capture_output=True, text=True, env=env)
        whole.append(time.perf_counter() - started)
        assert done.returncode == 0, done.stderr
    print(f"seqdesk audit verify ({done.stdout.strip()}): median {statistics.median(whole) * 1000:.0f} ms "
          f"with the process start  [load {load()}]")

    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    middle = len(lines) // 2 + (0 if '"decision":"denied"' in lines[len(lines) // 2] else 1)
    lines[middle] = lines[middle].replace('"decision":"denied"', '"decision":"approved"')
    path.write_text("".join(lines), encoding="utf-8")
    verdict = verify(read_documents(path))
    assert verdict.broken_at == middle + 1, verdict.sentence()
    print(f"edit: line {middle + 1} edited by hand: {verdict.sentence()}")

    answers_folder = folder / "answers"
    answers_folder.mkdir(exist_ok=True)
    with_record, without = asyncio.run(answers(answers_folder, args.answers))
    print(f"answer: respond median {with_record * 1000:.2f} ms with the record, {without * 1000:.2f} ms without "
          f"({args.answers} each, in turn)  [load {load()}]")


if __name__ == "__main__":
    main()
