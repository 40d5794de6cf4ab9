"""The banner after a wider approval: what is now allowed without asking, with Undo and Manage."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import ui

from gui.core.asks import ApprovalRule, tool_rule_id
from gui.i18n import _


def show_allowed(banner: ui.row, tool: str, rule: ApprovalRule | None,
                 revoke: Callable[[str], Awaitable[Any]]) -> None:
    """Fill `banner`: `rule` None means the tool itself is now always allowed."""
    banner.clear()
    with banner:
        ui.icon("verified_user")
        if rule is None:
            ui.label(_("Now always allowed: {tool}").format(tool=tool)).classes("font-medium").mark("allowed-text")
            ui.label(_("It runs without asking from now on.")).classes("text-sm")
        else:
            ui.label(_("Now allowed without asking: {rule}").format(rule=rule.words(_))).classes(
                "font-medium").mark("allowed-text")
        ui.space()
        rule_id = rule.rule_id if rule is not None else tool_rule_id(tool)

        async def undo() -> None:
            try:
                await revoke(rule_id)  # on disk before the page says so
            except LookupError:
                pass  # taken back in Settings meanwhile
            banner.clear()
            with banner:
                ui.icon("undo")
                ui.label(_("{tool} asks again before it runs.").format(tool=tool)).mark("allowed-undone")
                ui.space()
                ui.button(icon="close", on_click=lambda: banner.set_visibility(False)).props("flat round dense")

        ui.button(_("Undo"), on_click=undo).props("flat no-caps dense").mark("allowed-undo")
        ui.button(_("Manage"), on_click=lambda: ui.navigate.to("/settings")).props("flat no-caps dense")
        ui.button(icon="close", on_click=lambda: banner.set_visibility(False)).props("flat round dense")
    banner.set_visibility(True)
