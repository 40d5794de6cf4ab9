"""The built-in set as a whole: every tool registered, with a form a non-developer can fill in."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gui.core.tools.registry import Registry
from gui.tools import builtin_tools, default_registry

EXPECTED = {
    # name: (approval, concurrency_safe)
    "cmd_run": ("exec", True),
    "file_read": ("tool", True),
    "file_write": ("write", False),
    "http_get": ("tool", True),
    "ask_user": ("none", True),
    "sleep": ("none", True),
    "echo": ("none", True),
    "seq_call": ("none", True),
    "mcp_resource": ("tool", True),
}


def test_default_registry_holds_every_builtin_with_its_risk_and_parallelism():
    registry = default_registry()
    assert isinstance(registry, Registry)
    assert registry.names() == sorted(EXPECTED)
    for tool in registry:
        assert (tool.approval, tool.concurrency_safe) == EXPECTED[tool.name]


def test_builtin_tools_are_fresh_instances_each_time():
    first, second = builtin_tools(), builtin_tools()
    assert all(a is not b for a, b in zip(first, second, strict=True))


def _properties(schema: dict):
    yield schema.get("title"), schema.get("properties", {})
    for definition in schema.get("$defs", {}).values():
        if "properties" in definition:
            yield definition.get("title"), definition["properties"]


@pytest.mark.parametrize("tool", builtin_tools(), ids=lambda t: t.name)
def test_every_argument_has_a_plain_title_and_description(tool):
    assert tool.description and "_" not in tool.description.split(".")[0]
    schema = tool.input_schema()
    assert schema["additionalProperties"] is False
    for model_title, properties in _properties(schema):
        assert model_title and "Args" not in model_title
        for name, prop in properties.items():
            assert prop.get("title") and prop.get("description"), f"{tool.name}.{name}"


def test_tools_import_no_ui_storage_or_mcp():
    code = (
        "import sys, gui.tools; "
        "bad = [m for m in ('nicegui', 'tinydb', 'mcp') if m in sys.modules]; "
        "sys.exit(','.join(bad) or None)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
