"""The record of decisions at 10,000 entries: how long `seqdesk audit verify` takes to prove the
chain unbroken, and whether a hand edit in the middle is found (issue 26, item 5).

Run: python tests/bench/bench_audit_verify.py [--entries 10000] [--runs 7] [folder]
- write: `--entries` decisions appended through the store's own log (`FileAuditLog` on a `Writer`,
  each line synced before it is acknowledged, as the app does), total and per decision.
- verify: the command's work, `read_documents` of the file then `verify`, `--runs` times: the median,
  min and max. Then the same with the process start: `python -m gui audit verify --data …`, median.
- edit: one line in the middle edited by hand (a decision "denied" made "approved"), `verify` again:
  the entry it names must be that one.
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

from gui.core.asks import AuditDraft, verify
from gui.store.audit import FileAuditLog, audit_path, read_documents
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
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


if __name__ == "__main__":
    main()
