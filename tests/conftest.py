"""Test-wide settings: the app's entry file runs with in-memory stores unless a test says otherwise,
and the engine fixtures (tests/support/engine.py) and the command's data folder (tests/support/cli.py)
are there for every test.

A folder (or the whole suite) runs side by side in one worker process per core and one more (pytest-xdist, `-n auto`
in pyproject), each test file whole in one worker (`--dist loadfile`: a module's app, browser and data
folders are never shared across processes); a file or a single test runs in this process alone.
`-n 0` runs anything in one process, `-n 3` in three; `PYTEST_XDIST_AUTO_NUM_WORKERS` sets the count."""

from __future__ import annotations

import compileall
import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("SEQDESK_MEMORY", "1")

pytest_plugins = ["support.engine", "support.cli", "support.postgres", "support.temporal", "support.executors"]


def pytest_configure(config: pytest.Config) -> None:
    """Compile the app's modules once, before any worker starts (in the controller, or the one process
    of a single file): the suite starts `python -m gui` hundreds of times, and where bytecode is not
    written (`PYTHONDONTWRITEBYTECODE`, as on this project's machines) or is older than the source, each
    of them compiled every module it imported again (~0.3 s of CPU for the app's). Writes only
    `__pycache__` folders, which git ignores."""
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(Path(__file__).resolve().parent.parent / "gui", quiet=1, workers=0)


def _one_file_or_test(arg: str, here: Path) -> bool:
    path = Path(arg.split("::")[0])
    return (path if path.is_absolute() else here / path).is_file()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Workers for `-n auto`: none for files and single tests (starting workers would take longer than
    they save), else one more than the cores, and three at least: many tests wait on another process
    (the app, a browser, a server), and a third worker fills those waits (on the 2-core machine the
    whole suite took 741 s with two workers, 576 s with three)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist reads it
    here = config.invocation_params.dir
    if config.args and all(_one_file_or_test(arg, here) for arg in config.args):
        return 0
    return max(3, (os.cpu_count() or 1) + 1)


# Files run first, longest first, so that no long file starts last while the other workers have
# finished (xdist hands files out in order, and by default puts files with few tests last: a 4-minute
# build or kill test then ran alone at the end). Their minutes, measured quietly at the last landing.
# tests/test_quality.py is quick where mypy's cache (.mypy_cache, in the checkout) is warm, but on a
# clean clone mypy checks everything (~20 s of CPU, ~45 s under load, against ~1 s warm): collected
# among the last files, it ran in the suite's tail.
LONG_FIRST = ("tests/packaging/", "tests/store/test_crash.py", "tests/store/test_kill_runs.py", "tests/e2e/",
              "tests/temporal/", "tests/store/test_postgres", "tests/mcp/test_mcp_agent_waits.py",
              "tests/test_quality.py")


def _long_first(item: pytest.Item) -> int:
    path = item.nodeid.split("::")[0]  # from the project's folder: "tests/…"
    return next((rank for rank, start in enumerate(LONG_FIRST) if path.startswith(start)), len(LONG_FIRST))


# What makes a test `slow` without its saying so: it needs a program outside Python that takes seconds to
# start and drives it for seconds more: a browser and the real app (tests/e2e), a PostgreSQL server (the
# `postgres` mark), a Temporal dev server (the fixture, or the `temporal` side of `executor`), Node with
# the MCP conformance suite or the TypeScript SDK. `-m "not slow"` is the quick loop; the whole suite
# (the README's command, CI) runs them all.
OUTSIDE_FIXTURES = frozenset({"temporal_server", "conformance_cli", "server_everything", "ts_sdk", "browser",
                              "seqdesk_app"})


def _needs_a_program_outside(item: pytest.Item) -> bool:
    if item.nodeid.startswith("tests/e2e/") or item.get_closest_marker("postgres"):
        return True
    fixtures = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    return bool(fixtures & OUTSIDE_FIXTURES) or (callspec is not None and callspec.params.get("executor") == "temporal")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that need a program outside Python are marked `slow` (`_needs_a_program_outside`); the long
    files go first (`LONG_FIRST`; `--no-loadscope-reorder` in pyproject keeps this order), then the rest
    as collected."""
    for item in items:
        if _needs_a_program_outside(item):
            item.add_marker(pytest.mark.slow)
    items.sort(key=_long_first)  # stable: each file's tests stay in their order


def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything collected lives to the end: out of the collector's sight. NiceGUI's `user` fixture
    collects garbage twice a test, and walking the whole collected suite each time took longer than
    many tests themselves."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """NiceGUI's simulated user, as it ends, drops from `sys.modules` each module that holds a page, so
    the next start-up imports it again and registers its page anew, and drops their packages with them
    (`gui` too). A package imported again that way does not know the subpackages still loaded
    (`gui.core` is no attribute of the new `gui`), and what a later test in the same process finds
    through it depended on what ran before. The packages are put back; the pages' modules stay dropped."""
    packages = {name: module for name, module in sys.modules.items()
                if (name == "gui" or name.startswith("gui.")) and hasattr(module, "__path__")}
    try:
        return (yield)
    finally:
        for name, module in packages.items():
            sys.modules.setdefault(name, module)


_AST_RACE = "AST constructor recursion depth mismatch"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """A failed test's report made again when CPython 3.11's AST builder raced another thread. Its
    recursion counter is one per interpreter: pytest parses the failing test's source to show it while
    another thread of the test's app formats a traceback (which parses its lines too), and the parse
    raises `SystemError: AST constructor recursion depth mismatch` (fixed in later CPythons). The worker
    then ended with an INTERNALERROR instead of naming the failure (a clean clone's run of the suite,
    under load: the session stopped at 141 tests). Each parse sets the counter again, so a second try
    makes the report; any other error goes on as it was."""
    try:
        return (yield)
    except SystemError as exc:
        if _AST_RACE not in str(exc):
            raise
        return pytest.TestReport.from_item_and_call(item, call)
