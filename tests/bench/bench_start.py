"""How long the `seqdesk` command takes to start, for the four figures a person feels (issue 24, target 5).

A script, not a test: `python tests/bench/bench_start.py [--repeat 20]
[--only app,help,check,run,run-cold,run-warm] [-- COMMAND...]`. Every sample is a fresh process, timed
from before it is spawned:

- `app`: `COMMAND --browser --port P` on a fresh empty data folder, until `GET /` answers 200; then
  SIGTERM (as closing the window would) and a check that it exits.
- `help`: `COMMAND help`, to its exit.
- `check`: `COMMAND check FILE` of the format's example, to its exit.
- `run`: `COMMAND run FILE --yes` of a sequence with one `cmd_run` step running `true`, to its exit,
  on one data folder kept for every sample (as a person's is). `seqdesk run` goes through the app that
  serves the folder, started in the background when none does, which stays a moment after the run:
  so this figure mixes the two cases below, as they come.
- `run-cold`: the same, each sample on the folder when no app serves it (the last sample's background
  app has ended, waited for untimed): the run starts the app in the background and waits for it. Its
  CPU figure adds the app's: the CPU time it used up to the command's exit.
- `run-warm`: the same, with the folder's app up (`COMMAND --browser`, started once before the
  samples, as a person's open SeqDesk is).

COMMAND defaults to `python -m gui` (what the tests spawn); a packaged executable can follow `--`.
Prints each figure's median, its spread (min–max and the middle half) and the samples, in seconds,
and the median CPU time the process used (user + system, Linux): on a busy machine the wall-clock
figures grow with the load, the CPU times much less.

Children get Python's bytecode cache, as an installed SeqDesk has it (pip compiles on install):
PYTHONDONTWRITEBYTECODE is left out of their environment, and one unmeasured start per figure
writes the cache. `--no-bytecode` keeps it, so every start compiles SeqDesk's modules from source.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
ONE_TRUE = {"name": "one-true", "groups": [{"name": "only", "out": {"result": "string"},
                                             "tools": '{"tool":"cmd_run","args":{"command":"true"},"as":"result"} ;'}]}
FIGURES = ("app", "help", "check", "run", "run-cold", "run-warm")
ENDPOINT = "seqdesk.endpoint.json"


BYTECODE = {"cached": True}


def clean_env(data: str) -> dict[str, str]:
    """NiceGUI believes it runs under pytest when PYTEST_* / NICEGUI_* leak into a child process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_"))}
    env["SEQDESK_DATA"] = data
    env.pop("SEQDESK_MEMORY", None)
    if BYTECODE["cached"]:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


class Sample(NamedTuple):
    wall: float
    cpu: float | None  # user + system seconds of the process (None where the system does not say)
    app_cpu: float | None = None  # `run-cold`: those of the app it started, up to the command's exit


def cpu_of(pid: int) -> float | None:
    """User + system seconds a running process has used so far (Linux's /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def first_page(command: list[str], timeout: float = 60.0) -> Sample:
    """Seconds from spawning the app on an empty data folder to its first 200 for `/`."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="seqdesk-bench-") as data:
        start = time.perf_counter()
        proc = subprocess.Popen([*command, "--browser", "--port", str(port)], env=clean_env(data), cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            url = f"http://127.0.0.1:{port}/"
            while True:
                if proc.poll() is not None:
                    assert proc.stderr is not None
                    raise RuntimeError(f"the app exited with {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
                if time.perf_counter() - start > timeout:
                    raise TimeoutError(f"no answer from {url} after {timeout:.0f} s")
                try:  # a refused connection returns at once; an accepted one gets its page however long it takes
                    with urllib.request.urlopen(url, timeout=timeout) as response:
                        if response.status == 200:
                            return Sample(time.perf_counter() - start, cpu_of(proc.pid))
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    time.sleep(0.01)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise RuntimeError("the app did not exit within 15 s of SIGTERM") from None


def command_time(argv: list[str], data: str) -> Sample:
    """Seconds from spawning `argv` to its exit (and the CPU it and its children used); it must exit 0."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=clean_env(data), cwd=ROOT, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}: {err.read().decode()[-2000:]}")
    return Sample(elapsed, usage.ru_utime + usage.ru_stime)


def app_pid(data: str) -> int | None:
    """The pid of the app serving the data folder `data` (its endpoint file), if one does."""
    try:
        pid = json.loads((Path(data) / ENDPOINT).read_text(encoding="utf-8")).get("pid")
    except (OSError, ValueError):
        return None
    return pid if isinstance(pid, int) and pid_alive(pid) else None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def until_no_app(data: str, timeout: float = 60.0) -> None:
    """Once no app serves `data` and the last one's process has ended (untimed, between samples)."""
    deadline = time.monotonic() + timeout
    pid = app_pid(data)
    while pid is not None and pid_alive(pid):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the app {pid} on {data} did not end within {timeout:.0f} s")
        time.sleep(0.05)  # another process's end: nothing to wait on but its pid
        pid = app_pid(data) or pid


def cold_run(argv: list[str], data: str) -> Sample:
    """The command on the folder when no app serves it, and the CPU the app it started used until the
    command exited (read then: the app stays a moment after its program): on a busy machine the
    wall-clock figure grows with the load, these two much less."""
    until_no_app(data)
    sample = command_time(argv, data)
    pid = app_pid(data)
    return sample._replace(app_cpu=cpu_of(pid) if pid is not None else None)


class WarmApp:
    """The folder's app, up for the samples of `run-warm` (`COMMAND --browser`), ended after them."""

    def __init__(self, command: list[str], data: str) -> None:
        self.command, self.data = command, data
        self.proc: subprocess.Popen[bytes] | None = None

    def run(self, argv: list[str]) -> Sample:
        if self.proc is None:
            until_no_app(self.data)
            self.proc = subprocess.Popen([*self.command, "--browser"], env=clean_env(self.data), cwd=ROOT,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 120
            while app_pid(self.data) != self.proc.pid:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the folder's app did not come up")
                time.sleep(0.05)  # another process starting: nothing to wait on but its endpoint file
        return command_time(argv, self.data)

    def end(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(30)
            self.proc = None


def spread(samples: list[Sample]) -> str:
    walls = [s.wall for s in samples]
    cpus = [s.cpu for s in samples if s.cpu is not None]
    quarters = statistics.quantiles(walls, n=4) if len(walls) > 1 else [walls[0]] * 3
    cpu = f"; CPU median {statistics.median(cpus):.3f} s" if cpus else ""
    app_cpus = [s.app_cpu for s in samples if s.app_cpu is not None]
    if app_cpus:
        cpu += f", its app's {statistics.median(app_cpus):.3f} s"
    return (f"median {statistics.median(walls):.3f} s  (min {min(walls):.3f}, middle half "
            f"{quarters[0]:.3f}–{quarters[2]:.3f}, max {max(walls):.3f}; n={len(walls)}{cpu})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--only", default=",".join(FIGURES), help="which figures, comma-separated")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE: every start compiles SeqDesk from source")
    parser.add_argument("command", nargs="*", help="what to start (default: python -m gui)")
    args = parser.parse_args()
    command = args.command or [sys.executable, "-m", "gui"]
    BYTECODE["cached"] = not args.no_bytecode
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = set(chosen) - set(FIGURES)
    if unknown:
        parser.error(f"--only: unknown figure(s) {', '.join(sorted(unknown))}; choose from {', '.join(FIGURES)}")
    with tempfile.TemporaryDirectory(prefix="seqdesk-bench-") as work:
        folder = Path(work)
        (folder / "data").mkdir()
        example = folder / "example.json"
        from_gui = subprocess.run([*command, "help"], env=clean_env(str(folder / "data")), cwd=ROOT,
                                  capture_output=True, text=True, timeout=120, check=True).stdout
        example.write_text(_example_of(from_gui), encoding="utf-8")
        one_true = folder / "one-true.json"
        one_true.write_text(json.dumps(ONE_TRUE), encoding="utf-8")
        data = str(folder / "data")
        takes: dict[str, Callable[[], Sample]] = {
            "app": lambda: first_page(command),
            "help": lambda: command_time([*command, "help"], data),
            "check": lambda: command_time([*command, "check", str(example)], data),
            "run": lambda: command_time([*command, "run", str(one_true), "--yes"], data),
            "run-cold": lambda: cold_run([*command, "run", str(one_true), "--yes"], data),
            "run-warm": lambda: warm.run([*command, "run", str(one_true), "--yes"]),
        }
        warm = WarmApp(command, data)
        names = {"app": "start to first page (empty folder)", "help": "seqdesk help",
                 "check": "seqdesk check FILE", "run": "seqdesk run FILE (one `true` step)",
                 "run-cold": "seqdesk run FILE, no app on the folder", "run-warm": "seqdesk run FILE, the app up"}
        bytecode = "cached bytecode" if BYTECODE["cached"] else "no bytecode cache (compiled at every start)"
        print(f"command: {' '.join(Path(c).name for c in command)}; {bytecode}; {args.repeat} samples each; "
              f"load {os.getloadavg()[0]:.2f}")
        try:
            for name in chosen:
                takes[name]()  # one unmeasured start: the file cache, .pyc files
                samples = [takes[name]() for _ in range(args.repeat)]
                print(f"{names[name]:<38} {spread(samples)} (load {os.getloadavg()[0]:.2f})")
                print("    samples: " + ", ".join(f"{s.wall:.3f}" for s in samples), flush=True)
                print("    CPU: " + ", ".join(f"{s.cpu:.3f}" for s in samples if s.cpu is not None), flush=True)
                if any(s.app_cpu is not None for s in samples):
                    print("    its app's CPU: " + ", ".join(f"{s.app_cpu:.3f}" for s in samples
                                                     if s.app_cpu is not None), flush=True)
                if name == "run-warm":
                    warm.end()
        finally:
            warm.end()
            until_no_app(data)
        print(f"load at the end {os.getloadavg()[0]:.2f}")


def _example_of(help_text: str) -> str:
    """The example sequence `seqdesk help` prints (its one line that is a JSON object with groups)."""
    for line in help_text.splitlines():
        line = line.strip()
        if line.startswith("{") and '"groups"' in line:
            json.loads(line)
            return line
    raise RuntimeError("`seqdesk help` printed no example sequence")


if __name__ == "__main__":
    main()
