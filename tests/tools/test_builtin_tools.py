"""The built-in set as a whole: every tool registered, with a form a non-developer can fill in."""

from __future__ import annotations

import json
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


@pytest.mark.parametrize(("name", "args"), [
    ("echo", {"value": {"a": [1, 2.5, None, True, "ü"], "b": {}}}),
    ("echo", {"value": [1, float("inf")]}),
    ("cmd_run", {"command": "ls", "timeout": 5}),
    ("http_get", {"url": "https://example.org/", "headers": {"a": "b"}}),
    ("sleep", {"seconds": 1}),
    ("seq_call", {"name": "other", "args": {"n": 1}}),
    ("ask_user", {"title": "Which?", "questions": [{"id": "q", "prompt": "Which one?"}]}),
])
def test_checked_arguments_are_their_models_json_dump(name, args):
    """A check hands its arguments on as JSON values: its model's fields as they are when its dump
    would not change them (the common case, without the dump's cost), else that dump."""
    tool = default_registry().get(name)
    checked = tool.validate_args(args)
    dumped = checked.model.model_dump(mode="json")
    assert checked == dumped and json.dumps(checked) == json.dumps(dumped) and type(checked.model) is tool.Args


def test_a_model_whose_dump_changes_its_values_is_dumped():
    from typing import Annotated

    from pydantic import BaseModel, Field, PlainSerializer, computed_field, field_serializer

    from gui.core.tools.registry import json_values

    class Serialized(BaseModel):
        x: int

        @field_serializer("x")
        def _x(self, value: int) -> int:
            return value + 1

    class Computed(BaseModel):
        x: int

        @computed_field  # type: ignore[prop-decorator]
        @property
        def y(self) -> int:
            return self.x

    class Annotated_(BaseModel):
        x: list[Annotated[int, PlainSerializer(lambda v: v + 1)]]

    class Excluded(BaseModel):
        x: int
        y: int = Field(default=0, exclude=True)

    for model in (Serialized(x=1), Computed(x=1), Annotated_(x=[1]), Excluded(x=1)):
        assert json_values(model) == model.model_dump(mode="json") != dict(model.__dict__)
