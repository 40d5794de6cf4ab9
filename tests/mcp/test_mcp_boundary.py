"""Only `gui.mcp` imports the MCP SDK: the core and the built-in tools work without it."""

from __future__ import annotations

import subprocess
import sys


def test_the_core_and_the_tools_never_import_the_mcp_sdk():
    code = ("import pkgutil, importlib, sys, gui.core, gui.tools\n"
            "for pkg in (gui.core, gui.tools):\n"
            "    for m in pkgutil.iter_modules(pkg.__path__):\n"
            "        importlib.import_module(f'{pkg.__name__}.{m.name}')\n"
            "bad = sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types')))\n"
            "assert not bad, bad\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
