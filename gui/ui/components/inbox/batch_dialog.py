"""Answering several approvals at once (issue 26, item 4): pick them, read the list of exactly what will
be approved or denied (each command, where it comes from, and that the answer is for that request
only), then confirm. Each answer is sent and recorded on its own request (`Operations.respond_many`);
one that is refused (not yours, ended meanwhile) is named with why, and the others still go.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import ui

from gui.core.asks import InteractionRecord
from gui.core.door import BatchAnswer, BatchOutcome
from gui.i18n import DATA, _
from gui.wording import requests as fmt

RespondMany = Callable[[list[BatchAnswer]], Awaitable[list[BatchOutcome]]]


class BatchDialog(ui.dialog):
    """Step one: choose among the approvals that need you; step two: the list to confirm."""

    def __init__(self, approvals: list[InteractionRecord], respond_many: RespondMany,
                 on_done: Callable[[list[BatchOutcome]], Awaitable[None] | None]) -> None:
        super().__init__()
        self.approvals = approvals
        self._respond_many, self._on_done = respond_many, on_done
        self.chosen: dict[str, bool] = {r.interaction_id: False for r in approvals}
        with self, ui.card().classes("w-full max-w-2xl gap-3").mark("batch-dialog"):
            self.content = ui.column().classes("w-full gap-3")
        self._choose()

    def _choose(self) -> None:
        self.content.clear()
        with self.content:
            ui.label(_("Answer several approvals at once")).classes("text-h6")
            ui.label(_("Tick the ones to answer. Each answer is for that request only (no rule is made), "
                       "and each is recorded on its own request.")).classes("text-sm opacity-80")
            with ui.column().classes("w-full gap-1 max-h-96 overflow-y-auto"):
                for record in self.approvals:
                    iid = record.interaction_id
                    with ui.row().classes("w-full no-wrap items-start gap-2 p-2 rounded inbox-row").mark(
                            f"batch-row batch-row-{iid}"):
                        ui.checkbox(value=self.chosen[iid],
                                    on_change=lambda e, i=iid: self.chosen.__setitem__(i, bool(e.value))).mark(
                            f"batch-check-{iid}")
                        self._describe(record)
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(_("Cancel"), on_click=self.close).props("flat no-caps")
                ui.button(_("Deny selected…"), icon="block", on_click=lambda: self._confirm("denied")).props(
                    "outline no-caps color=negative").mark("batch-deny")
                ui.button(_("Approve selected…"), icon="check", on_click=lambda: self._confirm("approved")).props(
                    "unelevated no-caps").mark("batch-approve")

    @staticmethod
    def _describe(record: InteractionRecord) -> None:
        request = record.request
        with ui.column().classes("gap-0 min-w-0 grow"):
            ui.label(fmt.title(request)).classes("text-sm font-medium")
            preview = fmt.preview(request)
            if preview:
                ui.label(preview).classes(f"text-sm font-mono break-all {DATA}").mark("batch-command")
            where = " › ".join(fmt.source_parts(request))
            ui.label(_("From {where} · scope: this request only").format(where=where or _("this app"))).classes(
                "text-xs opacity-70").mark("batch-scope")

    def _confirm(self, decision: str) -> None:
        picked = [r for r in self.approvals if self.chosen[r.interaction_id]]
        if not picked:
            ui.notify(_("Tick at least one request first."), position="bottom")
            return
        self.content.clear()
        approve = decision == "approved"
        with self.content:
            ui.label((_("Approve these {n}?") if approve else _("Deny these {n}?")).format(n=len(picked))).classes(
                "text-h6").mark("batch-confirm-title")
            ui.label(_("Each runs exactly as listed, once.") if approve else _("None of these will run.")).classes(
                "text-sm opacity-80")
            with ui.column().classes("w-full gap-1 max-h-96 overflow-y-auto").mark("batch-confirm-list"):
                for record in picked:
                    with ui.row().classes("w-full no-wrap items-start gap-2 p-2 rounded inbox-row"):
                        ui.icon("check" if approve else "block", color="positive" if approve else "negative")
                        self._describe(record)
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(_("Back"), on_click=self._choose).props("flat no-caps").mark("batch-back")
                ui.button((_("Approve {n}") if approve else _("Deny {n}")).format(n=len(picked)),
                          icon="check" if approve else "block",
                          on_click=lambda: self._send(picked, decision)).props(
                    f"unelevated no-caps color={'primary' if approve else 'negative'}").mark("batch-send")

    async def _send(self, picked: list[InteractionRecord], decision: str) -> None:
        response: dict[str, Any] = {"kind": "approval", "decision": decision}
        outcomes = await self._respond_many([BatchAnswer(interaction_id=r.interaction_id, response=response)
                                             for r in picked])
        self.close()
        result = self._on_done(outcomes)
        if result is not None:
            await result


def outcome_words(outcomes: list[BatchOutcome]) -> str:
    """"3 answered; 1 not: <why>" for the notice after a batch."""
    done = [o for o in outcomes if o.ok]
    refused = [o for o in outcomes if not o.ok]
    words = _("{n} answered").format(n=len(done))
    if refused:
        words += "; " + _("{n} not: {why}").format(n=len(refused), why=refused[0].detail or refused[0].code or "")
    return words
