"""Settings → Record of decisions: every request that ended, newest first: when, who or what decided
(you in the app, the command line, the HTTP API, a rule, a timeout, the app closing), what was
decided, and the exact text that was shown. Above it, whether the chain of the record is unbroken
(`gui.core.asks.audit`): a line edited by hand in the file is named here as `seqdesk audit verify`
names it (with no decisions yet there is no chain to vouch for: only that there are none is said).
Read-only: nothing on this card changes the record."""

from __future__ import annotations

import time

from nicegui import ui

from gui.core.asks import AuditEntry, Verdict, who_words
from gui.core.door import Engine
from gui.i18n import DATA, N_, _, ngettext

SHOWN_AT_MOST = 100  # the newest; `seqdesk audit export` prints them all

EXPLAINED = N_("Every request that ended is recorded here: who or what decided it, when, and the exact text that "
               "was shown. Each entry carries the fingerprint (SHA-256) of the one before it, so an entry changed "
               "afterwards is found. To check or export the whole record, run these in a terminal:")
COMMANDS = "seqdesk audit verify · seqdesk audit export"

DECISION_WORDS = {
    "approved": N_("Approved"),
    "denied": N_("Denied"),
    "answered": N_("Answered"),
    "declined": N_("Declined"),
    "accepted": N_("Form sent"),
    "expired": N_("Expired"),
    "cancelled": N_("Cancelled"),
}


def when_words(at_ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at_ms / 1000))


class DecisionRow(ui.row):
    """One decision: when and who on the left, what was decided and shown on the right."""

    def __init__(self, entry: AuditEntry) -> None:
        super().__init__(wrap=False)
        self.classes("w-full items-start gap-4 py-2 border-b border-gray-100 dark:border-gray-800")
        self.mark(f"decision-{entry.position}")
        with self:
            with ui.column().classes("gap-0 w-56 shrink-0"):
                ui.label(when_words(entry.at)).classes("text-sm font-mono")
                ui.label(who_words(entry, _)).classes("text-sm font-medium break-words").mark(
                    f"decision-who-{entry.position}")
            with ui.column().classes("gap-1 grow min-w-0"):
                decided = _(DECISION_WORDS[entry.decision]) if entry.decision in DECISION_WORDS else entry.decision
                ui.label(decided + (f" — {entry.detail}" if entry.detail else "")).classes("text-sm break-words")
                ui.label(entry.shown).classes(
                    f"text-sm font-mono whitespace-pre-wrap break-words text-gray-700 dark:text-gray-300 {DATA}")


def verdict_words(verdict: Verdict) -> str:
    if verdict.ok:
        return ngettext("The record is intact: the chain of {count} decision is unbroken.",
                        "The record is intact: the chain of {count} decisions is unbroken.",
                        verdict.count).format(count=verdict.count)
    named = _(" (id {id})").format(id=verdict.broken_id) if verdict.broken_id else ""
    return _("The record was changed: the chain is broken at entry {position}{named}: {problem}").format(
        position=verdict.broken_at, named=named, problem=verdict.problem)


async def decisions_card(engine: Engine) -> None:
    """The card, drawn from the door (`Engine.decisions`)."""
    with ui.card().classes("w-full gap-2 p-4").props("flat bordered").mark("decisions"):
        with ui.row(wrap=False).classes("w-full items-center"):
            ui.label(_("Record of decisions")).classes("text-lg font-semibold grow")
            refresh = ui.button(_("Refresh"), icon="refresh").props("outline dense no-caps").mark("decisions-refresh")
        ui.label(_(EXPLAINED)).classes("text-sm text-gray-600 dark:text-gray-400")
        ui.label(COMMANDS).classes(f"text-sm font-mono text-gray-700 dark:text-gray-300 {DATA}")

        @ui.refreshable
        async def listing() -> None:
            found, verdict = await engine.decisions()
            if not found and verdict.ok:  # nothing to vouch for: the line below says there is nothing yet
                ui.label(_("No decisions yet: they appear here once a request is answered, allowed by a rule, "
                           "expires or is stopped.")).classes("text-gray-600 dark:text-gray-400").mark("decisions-none")
                return
            with ui.row(wrap=False).classes("items-center gap-2 text-sm"):
                ui.icon("verified" if verdict.ok else "report").classes(
                    "text-green-700 dark:text-green-300" if verdict.ok else "text-red-700 dark:text-red-300")
                ui.label(verdict_words(verdict)).classes("break-words").mark("decisions-verdict")
            if not found:
                return
            if len(found) > SHOWN_AT_MOST:
                ui.label(_("The newest {shown} of {count}; seqdesk audit export prints them all.").format(
                    shown=SHOWN_AT_MOST, count=len(found))).classes("text-sm text-gray-600 dark:text-gray-400")
            with ui.column().classes("w-full gap-0"):
                for entry in reversed(found[-SHOWN_AT_MOST:]):
                    DecisionRow(entry)

        refresh.on_click(listing.refresh)
        await listing()
