"""Who a request is for, in words, beside it in the inbox (issue 26): who may answer it, how many must
approve and who already did (with when), to whom it was handed and why, and a "Hand over…" dialog.

Shown only for a request whose step names its answerers or needs several approvals, or that was
handed over: on the desktop, a request as it always was shows nothing more.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import ui

from gui.core.asks import InteractionRecord, answerers, deny_only, required_of
from gui.core.sequences import split_target
from gui.i18n import DATA, _
from gui.wording import requests as fmt

HandOver = Callable[[str, str, str], Awaitable[Any]]  # (interaction id, to, note)


def target_words(target: str) -> str:
    """`role:oncall` as "everyone with the role oncall", `person:li.wei` as "li.wei"."""
    found = split_target(target)
    if found is None:
        return target
    kind, name = found
    return _("everyone with the role {role}").format(role=name) if kind == "role" else name


def shows_people(record: InteractionRecord) -> bool:
    asking = record.request.asking
    return bool(record.handovers or record.approvals or (asking is not None and asking.gated))


def progress_words(record: InteractionRecord) -> str:
    """"1 of 2 approvals" (only for an approval that needs several)."""
    return _("{given} of {required} approvals").format(given=len(record.approvals), required=required_of(record))


def waiting_words(record: InteractionRecord) -> str:
    """Whom a request waits on, as a sentence: any one of its answerers ("anyone with the role oncall")
    or, for an approval of several, how far it is and from whom ("1 of 2 approvals from people with the
    role oncall"): any of them may answer, never all of them must."""
    targets = answerers(record)
    several = record.request.kind == "approval" and required_of(record) > 1

    def one(target: str) -> str:
        found = split_target(target)
        if found is None:
            return target
        kind, name = found
        if kind != "role":
            return name
        return (_("people with the role {role}") if several else _("anyone with the role {role}")).format(role=name)

    who = ", ".join(one(t) for t in targets) if targets else _("anyone who may answer")
    if several:
        return _("Waiting on others: {given} of {required} approvals from {who}").format(
            given=len(record.approvals), required=required_of(record), who=who)
    return _("Waiting on others: {who}").format(who=who)


def people_line(record: InteractionRecord, viewer: str | None = None, roles: frozenset[str] = frozenset()) -> None:
    """The lines that say who may answer, how many must approve and who did; `viewer`, the person
    looking (with their `roles`), is "you" where the lines name them. That they started the run is said
    here only where it is not said already under their held Approve (where they may still deny it)."""
    if not shows_people(record):
        return
    with ui.column().classes("w-full gap-1 rounded p-3 text-sm bg-violet-50 text-violet-950 dark:bg-violet-950 "
                             "dark:text-violet-100").mark(
            "people-line"):
        targets = answerers(record)
        if targets:
            ui.label(_("Who may answer: {who}").format(who=", ".join(target_words(t) for t in targets))).mark(
                "who-may-answer")
        required = required_of(record)
        if record.request.kind == "approval" and required > 1:
            ui.label(_("{required} different people must approve it before it runs; a single refusal stops it.").format(
                required=required)).mark("required-words")
            ui.label(progress_words(record)).classes("font-medium").mark("approvals-progress")
        for given in record.approvals:
            ui.label(_("Approved by {person} at {time}").format(person=given.person, time=fmt.clock(given.at))
                     ).classes(DATA).mark("approved-by")
        for handed in record.handovers:
            words = _("{by} handed it to {to} at {time}").format(by=handed.by, to=target_words(handed.to),
                                                                 time=fmt.clock(handed.at))
            ui.label(words + (f": “{handed.note}”" if handed.note else "")).classes(DATA).mark("handed-over")
        if record.request.started_by and record.request.kind == "approval":
            asking = record.request.asking
            if asking is None or not asking.self_approve:
                started_by = record.request.started_by
                if started_by == viewer and deny_only(record, viewer, roles) is not None:
                    return  # the reason under the held Approve says it, with what they may still do
                ui.label(_("You started this run, so someone else must approve this step.") if started_by == viewer
                         else _("Started by {person}, who may deny it but not approve it.").format(
                             person=started_by)).classes("opacity-80").mark("started-by")


class HandOverDialog(ui.dialog):
    """"Hand over…": to one person or everyone with a role, with a note they will read."""

    def __init__(self, record: InteractionRecord, hand_over: HandOver,
                 on_done: Callable[[InteractionRecord], Awaitable[None] | None]) -> None:
        super().__init__()
        self.record, self._hand_over, self._on_done = record, hand_over, on_done
        with self, ui.card().classes("w-full max-w-md gap-3").mark("hand-over-dialog"):
            ui.label(_("Hand this request to someone else")).classes("text-h6")
            ui.label(_("They may answer it from now on: it shows in their inbox (and in a notification, where "
                       "notifications are set up). The record of decisions keeps it as a delegation.")).classes(
                "text-sm opacity-80")
            self.kind = ui.toggle({"person": _("A person"), "role": _("Everyone with a role")}, value="person").props(
                "no-caps dense unelevated toggle-color=primary").mark("hand-over-kind")
            self.name = ui.input(_("Their name (as they sign in), or the role")).props("outlined dense").classes(
                "w-full").mark("hand-over-name")
            self.note = ui.textarea(_("A note for them (optional)")).props("outlined dense autogrow").classes(
                "w-full").mark("hand-over-note")
            self.problem = ui.label("").classes("text-negative text-sm").mark("hand-over-problem")
            self.problem.set_visibility(False)
            with ui.row().classes("w-full justify-end gap-2"):
                ui.button(_("Cancel"), on_click=self.close).props("flat no-caps")
                ui.button(_("Hand over"), icon="forward", on_click=self._send).props("unelevated no-caps").mark(
                    "hand-over-send")

    async def _send(self) -> None:
        name = (self.name.value or "").strip()
        if not name:
            self.problem.set_text(_("Write whom to hand it to."))
            self.problem.set_visibility(True)
            return
        try:
            record = await self._hand_over(self.record.interaction_id, f"{self.kind.value}:{name}",
                                           (self.note.value or "").strip())
        except Exception as exc:  # noqa: BLE001 - every refusal is a sentence for the person (not theirs, ended…)
            self.problem.set_text(str(getattr(exc, "message", None) or exc))
            self.problem.set_visibility(True)
            return
        self.close()
        result = self._on_done(record)
        if result is not None:
            await result
