"""How long `seqdesk --browser` takes from launch to its first page (target: under 3 s).

A script, not a test: `python tests/bench/bench_startup.py [--repeat 5] [--path /] [-- COMMAND...]`.
Each sample spawns `python -m gui --browser --port P` with a fresh temporary SEQDESK_DATA, polls
`GET path` until it answers 200, then stops the app (SIGTERM, as closing the window would) and
checks that it exits cleanly. A different command (e.g. the packaged executable) can follow `--`.
Prints every sample and the median, in seconds.
"""

from __future__ import annotations

import argparse
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def clean_env(data: str) -> dict[str, str]:
    """NiceGUI believes it runs under pytest when PYTEST_* / NICEGUI_* leak into a child process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NICEGUI_"))}
    env["SEQDESK_DATA"] = data
    env.pop("SEQDESK_MEMORY", None)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sample(command: list[str], path: str, timeout: float = 60.0) -> float:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="seqdesk-bench-") as data:
        start = time.perf_counter()
        proc = subprocess.Popen([*command, "--browser", "--port", str(port)], env=clean_env(data), cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            url = f"http://127.0.0.1:{port}{path}"
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"the app exited with {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
                if time.perf_counter() - start > timeout:
                    raise TimeoutError(f"no answer from {url} after {timeout:.0f} s")
                try:
                    with urllib.request.urlopen(url, timeout=2) as response:
                        if response.status == 200:
                            elapsed = time.perf_counter() - start
                            break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    time.sleep(0.02)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--path", default="/")
    parser.add_argument("command", nargs="*", help="what to start (default: python -m gui)")
    args = parser.parse_args()
    command = args.command or [sys.executable, "-m", "gui"]
    samples = [sample(command, args.path) for _ in range(args.repeat)]
    print(f"start-up to first page ({' '.join(Path(c).name for c in command[:3])}, GET {args.path}):")
    print("  samples (s): " + ", ".join(f"{s:.2f}" for s in samples))
    print(f"  median: {statistics.median(samples):.2f} s")


if __name__ == "__main__":
    main()
