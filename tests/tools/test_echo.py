"""echo: any JSON value comes back unchanged."""

from __future__ import annotations

import pytest

from gui.core.errors import ToolArgumentError
from gui.tools.echo import Echo


@pytest.mark.parametrize("value", ["text", "", 0, 3.5, True, None, [1, "two", None], {"a": {"b": [1, 2]}, "ü": "ß"}])
async def test_value_comes_back_unchanged(ctx, value):
    tool = Echo()
    assert await tool.call(tool.validate_args({"value": value}), ctx) == value


def test_tool_needs_no_approval_and_runs_in_parallel():
    tool = Echo()
    assert (tool.name, tool.approval, tool.concurrency_safe) == ("echo", "none", True)


@pytest.mark.parametrize(("args", "field"), [({}, "value"), ({"value": 1, "other": 2}, "other")])
async def test_bad_arguments_name_the_field(ctx, args, field):
    with pytest.raises(ToolArgumentError) as err:
        await Echo().call(args, ctx)
    assert [path for path, _ in err.value.problems] == [field]
