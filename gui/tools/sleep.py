"""`sleep`: wait a while. Useful between steps (give a service time to start) and in tests.

It only waits, so it runs beside other tools; stopping the run interrupts the wait at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, Field

from gui.core.sequences import SlotType
from gui.core.tools import ModelTool, ToolContext
from gui.i18n import N_
from gui.tools._args import ToolArgs, parse_args

MAX_SLEEP_SECONDS = 24 * 60 * 60


class SleepArgs(ToolArgs):
    """Wait a while."""

    model_config = ConfigDict(title=N_("Wait"))

    seconds: float = Field(
        ge=0,
        le=MAX_SLEEP_SECONDS,
        title=N_("Seconds"),
        description=N_("How many seconds to wait, for example 5 or 0.5 (at most one day: 86400)."),
    )


class Sleep(ModelTool):
    name = "sleep"
    description = N_("Waits for the number of seconds you choose, then goes on.")
    concurrency_safe = True
    runs_on_hosts = True  # a team's worker carries it
    approval = "none"
    Args = SleepArgs

    def result_type_for(self, args: dict[str, Any], ins: Mapping[str, SlotType]) -> SlotType:
        return SlotType.NUMBER

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> float:
        a = parse_args(self, SleepArgs, args)
        await asyncio.sleep(a.seconds)
        return a.seconds
