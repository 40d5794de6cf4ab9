"""Each `seqdesk` command imports only what it uses: the start-up a person waits for at a terminal.

Read from `sys.modules` of a real child process after the command ran, not timed: which libraries a
command loads decides most of its start (the MCP SDK alone takes longer to import than the rest of
SeqDesk; NiceGUI with FastAPI about as long). Timings are `tests/bench/bench_start.py`'s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ONE_TRUE = {"name": "one-true", "groups": [{"name": "only", "out": {"result": "string"},
                                             "tools": '{"tool":"cmd_run","args":{"command":"true"},"as":"result"} ;'}]}
WEB = ("nicegui", "fastapi", "starlette", "uvicorn")
MCP_SDK = ("mcp", "mcp_types")


def command_env(data: Path, **more: str) -> dict[str, str]:
    """The environment of a `seqdesk` child on `data`: none of pytest's or NiceGUI's variables (NiceGUI
    believes it runs under pytest when they leak), nor the memory-store switch."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "NICEGUI_")) and k != "SEQDESK_MEMORY"}
    return {**env, "SEQDESK_DATA": str(data), **more}


def one_true(folder: Path) -> Path:
    """A sequence file of one `true` step in `folder`."""
    sequence = folder / "one.json"
    sequence.write_text(json.dumps(ONE_TRUE), encoding="utf-8")
    return sequence


def loaded_after(args: list[str], data: Path) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The top-level packages and SeqDesk modules loaded once `seqdesk ARGS` returned (in the same process)."""
    code = ("import json, sys\nfrom gui.cli import main\ncode = main(sys.argv[1:])\n"
            "print('\\nMODULES ' + json.dumps(sorted(m for m, v in sys.modules.items() if v is not None)), "
            "file=sys.stderr)\nsys.exit(code)\n")  # None: a module declined, not loaded
    env = command_env(data)
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                            cwd=ROOT, timeout=120)
    line = next(x for x in result.stderr.splitlines() if x.startswith("MODULES "))
    modules = set(json.loads(line.removeprefix("MODULES ")))
    return {m.split(".")[0] for m in modules} | {m for m in modules if m.startswith("gui.")}, result


def test_help_loads_neither_the_engine_nor_the_web_nor_the_mcp_sdk(data):
    loaded, result = loaded_after(["help"], data)
    assert result.returncode == 0, result.stderr
    assert loaded.isdisjoint({*WEB, *MCP_SDK, "tinydb", "httpx", "gui.core.door", "gui.settings", "asyncio"})


def test_check_reads_the_file_without_the_data_folder_the_web_or_the_mcp_sdk(tmp_path, data):
    sequence = one_true(tmp_path)
    loaded, result = loaded_after(["check", str(sequence)], data)
    assert result.returncode == 0, result.stderr
    assert loaded.isdisjoint({*WEB, *MCP_SDK, "tinydb", "httpx", "gui.store", "gui.runtime"})
    # the file is checked against the tools alone: neither the door (the engine) nor the inbox nor the
    # run records are loaded for it
    assert loaded.isdisjoint({"gui.core.door", "gui.core.asks", "gui.core.runs", "croniter"})


def test_run_on_a_folder_without_mcp_servers_loads_neither_the_web_nor_the_mcp_sdk(tmp_path, data):
    sequence = one_true(tmp_path)
    loaded, result = loaded_after(["run", str(sequence), "--yes"], data)
    assert result.returncode == 0, result.stderr
    assert "succeeded" in result.stderr
    # it goes through the app serving the folder (started in the background: one app per folder), so it
    # speaks HTTP; the pages, the API, the store and the MCP package stay in that app; the settings are
    # read without pydantic-settings (`gui.settings`)
    assert loaded.isdisjoint({*WEB, *MCP_SDK, "gui.api", "gui.ui", "gui.store", "tinydb", "gui.mcp",
                              "pydantic_settings"})
    # nor what httpx and httpcore load when installed for what no command does: httpx's own command
    # line (click, rich, pygments) and the trio backend
    assert loaded.isdisjoint({"httpx._main", "click", "rich", "pygments", "trio"})


def test_a_run_starts_the_app_before_loading_what_it_uses_only_afterwards(tmp_path, data):
    """`seqdesk run` starts the app as soon as it knows the folder: what it loads before then delays the
    app's start, so what it needs only later is not loaded yet: urllib's HTTP client (for a second
    launch), nor the settings' checks (pydantic), the event loop or its client of the app, which it
    loads while the app comes up (`gui.cli.early_app`)."""
    sequence = one_true(tmp_path)
    later = ("urllib.request", "http.client", "pydantic", "gui.settings", "asyncio", "httpx", "gui.doors")
    code = ("import sys\nimport gui.second_launch as launch\nspawn = launch.spawn_background\n"
            "def spawning(*args, **kwargs):\n"
            f"    print('\\nLOADED ' + repr(sorted(m for m in {later!r} if m in sys.modules)),\n"
            "          file=sys.stderr)\n"
            "    return spawn(*args, **kwargs)\n"
            "launch.spawn_background = spawning\nfrom gui.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    result = subprocess.run([sys.executable, "-c", code, "run", str(sequence), "--yes"], capture_output=True,
                            text=True, env=command_env(data), cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "\nLOADED []" in result.stderr, result.stderr[-2000:]


def test_the_app_a_run_starts_serves_its_api_without_the_pages(tmp_path, data):
    """The app `seqdesk run` starts in the background imports no NiceGUI (a person's window would),
    read from its own `-X importtime` lines in its log."""
    sequence = one_true(tmp_path)
    result = subprocess.run([sys.executable, "-m", "gui", "run", str(sequence), "--yes"], capture_output=True,
                            text=True, cwd=ROOT, timeout=120,
                            env=command_env(data, PYTHONPROFILEIMPORTTIME="1"))
    assert result.returncode == 0, result.stderr[-2000:]
    names = {line.split("|")[-1].strip() for line in (data / "background.log").read_text().splitlines()
             if line.startswith("import time:")}
    assert {"fastapi", "gui.api", "gui.store"} <= names  # it serves the API on the folder it opened
    assert "nicegui" not in names and "gui.ui" not in names
    # nor what only a page's socket needs (its WebSocket protocol, `gui.background_app.WebSocketsWhenAsked`),
    # nor babel's catalogue, which reads words back only in a language other than English
    assert "wsproto" not in names and "babel" not in names and "gui.i18n.catalog" not in names
    assert "pydantic_settings" not in names  # its settings are read without it (`gui.settings`)
    # FastAPI looks up `pydantic.v1` at each route only to refuse its models: declined (`gui.fastapi_load`;
    # each look-up is still a line, of a few µs, but none loads its modules)
    assert "pydantic.v1.main" not in names


def test_the_app_loads_fastapi_without_building_its_openapi_models_which_build_when_used():
    """`gui.fastapi_load`, as the app loads FastAPI: the models of an OpenAPI document are not built
    as FastAPI is imported (SeqDesk serves none), not even the three its module rebuilds as it ends
    (Schema, Operation, Encoding), yet each is built when used, and a document asked for is made as
    before; pydantic's `model_rebuild` is its own again afterwards."""
    code = ("import json, sys\nfrom gui.fastapi_load import load_fastapi\nload_fastapi()\nimport gui.api\n"
            "from fastapi import FastAPI\nfrom fastapi.openapi import models\nfrom pydantic import BaseModel\n"
            "built = sorted(n for n, c in vars(models).items() if getattr(c, '__pydantic_complete__', False))\n"
            "schema = models.Schema.model_validate({'properties': {'a': {'items': {'type': 'string'}}}})\n"
            "operation = models.Operation.model_validate({'callbacks': {'c': {'/p': {'get': {}}}}})\n"
            "encoding = models.Encoding.model_validate({'headers': {'h': {'schema': {'type': 'string'}}}})\n"
            "app = FastAPI()\napp.get('/x')(lambda: 1)\n"
            "print(json.dumps({'built': built, 'v1': sys.modules.get('pydantic.v1') is not None,\n"
            "                  'paths': sorted(app.openapi()['paths']),\n"
            "                  'used': [type(schema.properties['a'].items).__name__,\n"
            "                           type(operation.callbacks['c']['/p'].get).__name__,\n"
            "                           encoding.headers['h'].schema_.type],\n"
            "                  'rebuild': 'model_rebuild' not in vars(models.Schema)\n"
            "                             and BaseModel.model_rebuild.__func__.__module__ == 'pydantic.main'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    said = json.loads(out.stdout)
    assert {"OpenAPI", "Components", "PathItem", "Info", "Schema", "Operation", "Encoding"}.isdisjoint(said["built"]), \
        said["built"]
    assert said["v1"] is False
    assert said["paths"] == ["/x"]  # the document, its models built on first use
    assert said["used"] == ["Schema", "Operation", "string"]  # the names their rebuild resolves, resolved when used
    assert said["rebuild"] is True


def test_the_pages_and_the_api_load_no_mcp_sdk_until_a_server_is_connected():
    code = ("import sys, gui.app, gui.api, gui.ui, gui.runtime, gui.mcp.managed, gui.mcp.sign_in\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {MCP_SDK!r} + ('httpx',)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.strip() == "[]", out.stderr


def test_loading_the_app_s_modules_and_checking_a_file_run_no_program(tmp_path, data):
    """Nothing SeqDesk imports runs a program as it loads (croniter ran `file` on Python's executable to
    learn its bitness, ctypes' library search `ldconfig -p`): each was a fork and an exec at every start
    of the app, of `seqdesk check` and of `seqdesk run`. Read from the interpreter's audit events."""
    sequence = one_true(tmp_path)
    code = ("import sys\nran = []\n"
            "sys.addaudithook(lambda event, args: ran.append(args[1]) if event == 'subprocess.Popen' else None)\n"
            "import gui.core.runs, gui.tools, gui.runtime, gui.remote, gui.background_app\n"
            "from gui.cli import main\ncode = main(sys.argv[1:])\n"
            "print('\\nRAN ' + repr(ran), file=sys.stderr)\nsys.exit(code)\n")
    result = subprocess.run([sys.executable, "-c", code, "check", str(sequence)], capture_output=True, text=True,
                            env=command_env(data), cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "\nRAN []" in result.stderr, result.stderr[-2000:]
