"""One request, opened: who asks and why, how long is left, and the card to answer it.

It owns the moment of answering. The card builds a response; this sends it through `respond`
(from the page) and deals with the two ways that can fail: the answer does not fit (the card
unlocks, the message shows under it) or the request has already ended elsewhere — another tab,
another person, its deadline — which is shown as a calm banner with the buttons disabled, never
as an error page. When its countdown runs out it locks itself even before the engine says so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nicegui import ui

from gui.core.asks import (
    AlreadyApproved,
    Answerer,
    ElicitationRequest,
    InteractionNotPendingError,
    InteractionRecord,
    InteractionResponse,
    InteractionValidationError,
    NotAnApprover,
    QuestionRequest,
    ShellApprovalRequest,
    StillWaiting,
    ToolApprovalRequest,
    deny_only,
)
from gui.core.people import APPROVER
from gui.i18n import DATA, _
from gui.ui.components.inbox.body import ApprovalBody, RequestBody
from gui.ui.components.inbox.countdown import Countdown
from gui.ui.components.inbox.elicitation_form import ElicitationForm
from gui.ui.components.inbox.people_line import HandOver, HandOverDialog, people_line, progress_words
from gui.ui.components.inbox.question_form import QuestionForm
from gui.ui.components.inbox.shell_card import ShellApprovalCard
from gui.ui.components.inbox.tool_card import ToolApprovalCard
from gui.ui.components.run.link import RunLink, RunOf
from gui.ui.components.settings.reach import on_phone
from gui.ui.signed_in import current_person, refused
from gui.wording import requests as fmt

Respond = Callable[[str, InteractionResponse, Answerer], Awaitable[Any]]
Fetch = Callable[[str], Awaitable[InteractionRecord | None]]
# (the request as stored now, the answer that ended it; None: it still waits, approved by one of several or handed over)
Answered = Callable[[InteractionRecord, InteractionResponse | None], Awaitable[None] | None]


class InboxDetail(ui.card):
    def __init__(self, record: InteractionRecord, *, respond: Respond, fetch: Fetch, on_answered: Answered,
                 hand_over: HandOver | None = None, waiting_on: str | None = None, team: bool = False,
                 run_of: RunOf | None = None) -> None:
        """`team`: people signed in, so who may answer and how many must agree apply and are shown (on the
        desktop one person answers everything, once); `hand_over`: a team's "Hand over…"; `waiting_on`: the
        request waits on other people, said in these words, and cannot be answered here; `run_of`: finds
        the request's run, so its link says when it started (the door's `get_run`)."""
        super().__init__()
        self.record = record
        self._run_of = run_of
        self.interaction_id = record.interaction_id
        self._respond = respond
        self._fetch = fetch
        self._on_answered = on_answered
        # who answers, for the record of decisions: you (on a team server, the person signed in here), in
        # the app or on your paired phone; known once, as the detail is drawn
        viewer = current_person()
        self._by = Answerer(person=viewer.name, via="phone" if on_phone() else "app")
        self._roles = viewer.roles
        self.countdown: Countdown | None = None
        self._expiry: ui.row | None = None  # the countdown and what happens then: gone once it has ended
        self.ended = False
        self.answered_here = False  # answered on this card (its page redraws for that once: `on_answered`)
        self._message = ""
        request = record.request
        kind = fmt.kind(request)
        self.props("flat bordered").classes("w-full p-4 gap-3").mark("inbox-detail")
        with self:
            with ui.row().classes("w-full items-center no-wrap gap-3"):
                ui.icon(fmt.KIND_ICONS[kind], size="md").classes("text-deep-purple-6")
                ui.label(fmt.title(request)).classes("text-h6 grow").mark("detail-title")
                self.chip = ui.chip(fmt.WAITING.word, icon=fmt.WAITING.icon, color="deep-purple-1",
                                    text_color="deep-purple-9").props("square").mark("detail-state")
            self._source_line(request)
            self.people: ui.column | None = None  # who may answer: redrawn when an approval of several is kept
            if team:
                self.people = ui.column().classes("w-full")
                with self.people:
                    people_line(record, self._by.person, self._roles)
            if hand_over is not None and record.status == "pending":
                ui.button(_("Hand over…"), icon="forward",
                          on_click=lambda: HandOverDialog(self.record, hand_over, self._handed).open()).props(
                    "flat dense no-caps").classes("self-start").mark("hand-over-button")
            self.banner = ui.row().classes("w-full items-center no-wrap gap-2 rounded p-3 inbox-banner")
            self.banner.mark("ended-banner")
            self.banner.set_visibility(False)
            if request.expires_at is not None and record.status == "pending":
                with ui.row().classes("items-center gap-2") as self._expiry:
                    self.countdown = Countdown(request.expires_at)
                    ui.label(fmt.expiry_sentence(request)).classes("text-sm").mark("expiry-sentence")
            self.body = self._body(request)
            self.problem = ui.label("").classes("text-negative text-sm").mark("answer-problem")
            self.problem.set_visibility(False)
        if record.status != "pending":
            self.show_ended(record)
        elif waiting_on is not None:
            self._waiting(waiting_on)
        else:  # opened from a run's page: the person who started it may deny it there, not approve it
            why = self._deny_only(record)
            if why is not None and isinstance(self.body, ApprovalBody):
                self.body.deny_only(why)

    def _deny_only(self, record: InteractionRecord) -> str | None:
        """Why the person here may deny `record` but not approve it, in their words; None when they may
        approve it too, or may not answer it at all."""
        if not isinstance(self.body, ApprovalBody):
            return None
        why = deny_only(record, self._by.person, self._roles)
        if why is None:
            return None
        if isinstance(why, AlreadyApproved):
            return _("You already approved it; the next approval must come from someone else. You may still "
                     "choose {deny}.").format(deny=self.body.deny_word)
        return _("You started this run, so someone else must approve this step. You may still choose {deny}.").format(
            deny=self.body.deny_word)

    def _waiting(self, words: str) -> None:
        """It waits on others: say so, and keep its buttons from being pressed, but for a deny (with its
        note) where this person may still give one (they started the run, or already approved)."""
        why = self._deny_only(self.record)
        if why is not None and isinstance(self.body, ApprovalBody):
            self.ended = False
            self.body.deny_only(why)
        else:
            self.ended = True
            self.body.lock()
        self.chip.text = _("Waiting on others")
        self.chip.props("icon=hourglass_top")
        self.banner.clear()
        with self.banner:
            ui.icon("hourglass_top", size="sm")
            ui.label(words).classes("text-sm font-medium").mark("waiting-on-others")
        self.banner.set_visibility(True)

    async def _handed(self, record: InteractionRecord) -> None:
        ui.notify(_("Handed over: it is in their inbox now."), type="positive", position="bottom")
        result = self._on_answered(record, None)
        if result is not None:
            await result

    def _source_line(self, request: fmt.Request) -> None:
        with ui.row().classes("items-center gap-1 text-sm opacity-80 -mt-2"):
            ui.label(" › ".join(fmt.source_parts(request)) or _("Asked by this app")).mark("detail-source").classes(
                DATA if fmt.source_parts(request) else "")
            if request.turn_id:
                ui.label("·")
                RunLink(request.turn_id, f"/run/{request.turn_id}", self._run_of, tip=_("Watch this run live")).classes(
                    "text-blue-800 dark:text-blue-300").mark("run-link")
            ui.label(_("· asked {age}, at {time}").format(age=fmt.age(request.created_at),
                                                          time=fmt.clock(request.created_at)))

    def _body(self, request: fmt.Request) -> RequestBody:
        tool = fmt.tool_name(request) or fmt.asker(request)
        if isinstance(request, ShellApprovalRequest):
            return ShellApprovalCard(request, submit=self._submit, tool_name=tool)
        if isinstance(request, ToolApprovalRequest):
            return ToolApprovalCard(request, submit=self._submit, tool_name=tool)
        if isinstance(request, QuestionRequest):
            return QuestionForm(request, submit=self._submit)
        assert isinstance(request, ElicitationRequest)
        return ElicitationForm(request, submit=self._submit)

    async def _submit(self, response: InteractionResponse) -> None:
        self.problem.set_visibility(False)
        if APPROVER not in self._roles:  # the person this was drawn for (the page's sign-in stays theirs)
            refused(APPROVER)
            self.body.unlock()
            return
        try:
            answered = await self._respond(self.interaction_id, response, self._by)
        except (NotAnApprover, AlreadyApproved) as exc:  # not this person's to give: nothing was changed
            self.problem.set_text(_sentence(exc.message))
            self.problem.set_visibility(True)
            self.body.unlock()
            return
        except InteractionValidationError as exc:
            self.problem.set_text(_("That answer does not fit: {problem}").format(problem=exc.message))
            self.problem.set_visibility(True)
            self.body.unlock()
            return
        except InteractionNotPendingError as exc:
            record = await self._fetch(self.interaction_id)
            self.show_ended(record, message=exc.message)
            return
        self.ended = True
        self.answered_here = not isinstance(answered, StillWaiting)
        if isinstance(answered, StillWaiting):  # one approval of several: kept, the request still waits
            record = await self._fetch(self.interaction_id)
            if record is not None:
                self.record = record
            if record is not None and self.people is not None:  # the count and who approved, as now
                self.people.clear()
                with self.people:
                    people_line(record, self._by.person, self._roles)
            self._waiting(_("Your approval is kept ({progress}). It runs once enough other people approve.").format(
                progress=progress_words(record) if record is not None else ""))
            if record is not None:
                result = self._on_answered(record, None)
                if result is not None:
                    await result
            return
        record = await self._fetch(self.interaction_id)
        if record is not None:
            self._set_chip(record)
            result = self._on_answered(record, response)
            if result is not None:
                await result

    @property
    def answerable_kind(self) -> str | None:
        """The request's kind while it can still be answered here; None once it has ended."""
        if self.ended or self.body.locked:
            return None
        return fmt.kind(self.record.request)

    async def shortcut(self, action: str) -> bool:
        """A key's answer ("approve", "deny", "note"); False when this request cannot take it."""
        body = self.body
        if self.answerable_kind is None or not isinstance(body, ApprovalBody):
            return False
        if action == "approve":
            await body.approve()
        elif action == "deny":
            await body.deny()
        elif action == "note":
            body.focus_note()
        else:
            return False
        return True

    def show_ended(self, record: InteractionRecord | None, *, message: str = "") -> None:
        """The request can no longer be answered: say why and how it ended, disable the controls."""
        self.ended = True
        if record is not None:
            self.record = record
        message = message or self._message
        self._message = message
        self.body.lock()
        self._hide_expiry()
        self.banner.clear()
        with self.banner:
            icon = "timer_off" if record is not None and record.status == "expired" else "info"
            ui.icon(icon, size="sm")
            with ui.column().classes("gap-0"):
                headline = fmt.ended_headline(record) if record is not None else _("This request has already ended")
                ui.label(headline).classes("text-sm font-medium").mark("ended-headline")
                if message:
                    ui.label(_sentence(message)).classes("text-xs opacity-80").mark("ended-message")
        self.banner.set_visibility(True)
        if record is not None:
            self._set_chip(record)

    def _hide_expiry(self) -> None:
        """Once it has ended, "If nobody answers by …" is no longer so: the banner says what happened."""
        if self._expiry is not None:
            self._expiry.set_visibility(False)

    def _set_chip(self, record: InteractionRecord) -> None:
        outcome = fmt.outcome(record)
        self.chip.text = outcome.word
        self.chip.props(f"icon={outcome.icon} color={outcome.color} text-color=white")

    def tick(self, now: int) -> None:
        if self.countdown is None or self.ended:
            return
        if not self.countdown.tick(now):  # time is up: lock now, the engine's verdict follows
            self.ended = True
            self.body.lock()
            self._hide_expiry()
            self.banner.clear()
            with self.banner:
                ui.icon("timer_off", size="sm")
                ui.label(_("Expired at {time} — nothing was sent: {what}").format(
                    time=fmt.clock(self.countdown.expires_at, now), what=fmt.not_done(self.record.request))
                ).classes("text-sm font-medium").mark("ended-headline")
            self.banner.set_visibility(True)


def _sentence(message: str) -> str:
    text = message.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
