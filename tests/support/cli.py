"""The `seqdesk` command as a script runs it: a child `python -m gui ...` over a data folder of the
test's (`data`, a fixture of the whole suite), outside pytest's and NiceGUI's test markers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def seqdesk(*args: str, data: Path, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "NICEGUI_")) and k != "SEQDESK_MEMORY"}
    env["SEQDESK_DATA"] = str(data)
    return subprocess.run([sys.executable, "-m", "gui", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=timeout)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder
