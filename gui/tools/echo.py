"""`echo`: give back the value it is given, unchanged.

It is how a sequence puts a fixed value (or a combination of its inputs) into an output slot, and
the simplest tool for trying the runner out, in the app and in tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, Field, JsonValue

from gui.core.sequences import SlotType, literal_type
from gui.core.tools import ModelTool, ToolContext
from gui.i18n import N_
from gui.tools._args import ToolArgs, parse_args


class EchoArgs(ToolArgs):
    """Pass a value on."""

    model_config = ConfigDict(title=N_("Pass a value on"))

    value: JsonValue = Field(
        title=N_("Value"),
        description=N_("Any value: text, a number, true/false, a list or an object. It is passed on unchanged."),
    )


class Echo(ModelTool):
    name = "echo"
    description = N_("Passes on the value you give it, unchanged. Handy to save a value into a result.")
    concurrency_safe = True
    runs_on_hosts = True  # a team's worker carries it
    approval = "none"
    Args = EchoArgs

    def result_type_for(self, args: dict[str, Any], ins: Mapping[str, SlotType]) -> SlotType | None:
        return literal_type(args.get("value"), ins) if "value" in args else None

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> JsonValue:
        return parse_args(self, EchoArgs, args).value
