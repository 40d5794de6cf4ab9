"""The codebase's own rules: the core stays pure, the layers hold, ruff and mypy are clean.

Each gate runs the tool with this Python (`python -m …`), so none of them is ever skipped because
a command is missing from PATH: the tools come with the `[test]` extra.
"""

from __future__ import annotations

import ast
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


@pytest.mark.parametrize("package", ["gui/core", "gui/tools", "gui/wording", "gui/wire"])
def test_core_tools_wording_and_wire_import_no_ui_storage_or_mcp_library(package):
    offenders = {str(p.relative_to(ROOT)): sorted(_imports(p) & FORBIDDEN)
                 for p in (ROOT / package).rglob("*.py") if _imports(p) & FORBIDDEN}
    assert offenders == {}


def test_importing_the_core_loads_no_framework_at_run_time():
    code = ("import sys, gui.core.door.engine, gui.tools; "
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_gui_calls_no_dunder_import():
    """`__import__('sys').stderr.write(…)` is how a debugging line slips past review and ruff (one
    wrote timestamps to stderr on every answer): gui/ imports with `import`, never by calling it."""
    offenders = [f"{p.relative_to(ROOT)}:{node.lineno}" for p in (ROOT / "gui").rglob("*.py")
                 for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__"]
    assert offenders == []


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_ruff_is_clean():
    result = _run("-m", "ruff", "check", "gui", "tests")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-1000:]


def test_mypy_finds_no_error_in_gui():
    result = _run("-m", "mypy")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-1000:]


def test_the_layers_hold():
    """import-linter's contracts (pyproject.toml): core ← store; tools ← mcp ← composition root ←
    surfaces; surfaces never reach the store, the runner or the catalog."""
    result = _run("-c", "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports())")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-1000:]


def _circles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of a graph (strongly connected components of two or more modules, Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(imports.get(module, ())):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for module in sorted(imports):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)  # the tests run after this one in the same process get theirs back
    return circles


def test_no_import_circles_counting_imports_inside_functions_and_for_type_checking():
    """A circle makes a newcomer read two files to understand either; an import inside a function or
    under TYPE_CHECKING hides one without removing it, so those count too (grimp reads them all)."""
    import grimp

    graph = grimp.build_graph("gui", exclude_type_checking_imports=False)
    imports = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    assert _circles(imports) == []


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
