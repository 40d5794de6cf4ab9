"""`seq_call`: run another saved sequence, or one of its groups, as a single step.

The runner owns how a call runs (and how deep calls may nest: `ctx.depth` is passed on one level
deeper), so this tool only forwards. Cycles are rejected when a sequence is saved, not here.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, JsonValue, field_validator

from gui.core.errors import ToolError
from gui.core.tools import ModelTool, ToolContext
from gui.i18n import N_
from gui.tools._args import ToolArgs, invalid, parse_args


class SeqCallArgs(ToolArgs):
    """Run a saved sequence or group."""

    model_config = ConfigDict(title=N_("Run a saved sequence"))

    name: str = Field(
        title=N_("Sequence or group"),
        description=N_("The name of a saved sequence, or of a group in one, to run as this step."),
    )
    args: dict[str, JsonValue] = Field(
        default_factory=dict,
        title=N_("Inputs"),
        description=N_("The inputs the called sequence or group expects, by name."),
    )

    @field_validator("name")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise invalid("the name is empty")
        return value


class SeqCall(ModelTool):
    name = "seq_call"
    description = N_("Runs another saved sequence, or one group of it, as one step, and gives back its results.")
    concurrency_safe = True
    approval = "none"
    Args = SeqCallArgs

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> JsonValue:
        a = parse_args(self, SeqCallArgs, args)
        if ctx.call_sequence is None:
            raise ToolError("other sequences cannot be called from here")
        return await ctx.call_sequence(a.name, a.args, ctx.depth + 1)
