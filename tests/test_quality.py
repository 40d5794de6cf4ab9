"""The codebase's own rules: the core stays pure, and ruff is clean."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {"nicegui", "tinydb", "mcp", "fastapi", "starlette"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", ["gui/core", "gui/tools"])
def test_core_and_tools_import_no_ui_storage_or_mcp_library(package):
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & FORBIDDEN)
                 for p in (ROOT / package).rglob("*.py") if _imports(p) & FORBIDDEN}
    assert offenders == {}


def test_importing_the_core_loads_no_framework_at_run_time():
    code = ("import sys, gui.core.engine, gui.tools; "
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_ruff_is_clean():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (it comes with the [test] extra)")
    result = subprocess.run([ruff, "check", "gui", "tests"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout[-3000:]
