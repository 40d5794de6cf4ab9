"""The inbox (`/inbox`, `/inbox/{id}`): where a person answers what runs ask of them.

Laid out like an email client: *Needs you (N)* lists pending requests newest first (fifty per
page, so a thousand cost what fifty do), the opened one sits beside the list; *History* lists
what ended, filtered by outcome and kind, fifty at a time, each page one store query (a year of
answers costs what one page does). Everything is live, in every open tab, through one
batched subscription (`gui.ui.live`): new requests appear, answered ones leave, an opened one
that ends elsewhere says so and disables its buttons. Live updates never move what is under the
pointer (the list freezes while hovered and offers "2 new · Show") and never re-render a form
someone is typing in: the opened request is only rebuilt when the person opens another.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nicegui import context, ui

from gui.core.asks import (
    Answerer,
    ApprovalResponse,
    InboxView,
    InteractionKind,
    InteractionRecord,
    InteractionResponse,
    InteractionStatusFilter,
)
from gui.core.door import BatchAnswer, BatchOutcome
from gui.core.events import Event, InteractionChanged, InteractionCreated, InteractionEnded
from gui.core.people import DESKTOP_PERSON
from gui.core.queries import Page
from gui.i18n import DATA, N_, _, format_number
from gui.ui.components.inbox.allowed_banner import show_allowed
from gui.ui.components.inbox.answered_card import AnsweredCard
from gui.ui.components.inbox.batch_dialog import BatchDialog, outcome_words
from gui.ui.components.inbox.detail import InboxDetail
from gui.ui.components.inbox.history_row import HistoryRow
from gui.ui.components.inbox.keys import PHONE_HIDDEN, InboxShortcuts
from gui.ui.components.inbox.pending import pending_after
from gui.ui.components.inbox.people_line import waiting_words
from gui.ui.components.inbox.row import InboxRow
from gui.ui.components.run.dark import add_dark_css
from gui.ui.components.run.link import remembered
from gui.ui.live import live_events
from gui.ui.signed_in import current_person
from gui.ui.theme import frame
from gui.wording import requests as fmt

if TYPE_CHECKING:
    from gui.context import AppContext

HISTORY_STATUSES: dict[str, InteractionStatusFilter] = {"resolved": "resolved", "expired": "expired",
                                                  "cancelled": "cancelled"}
HISTORY_KINDS: dict[str, InteractionKind] = {"approval": "approval", "question": "question",
                                             "elicitation": "elicitation"}

PAGE_SIZE = 50
# A team's other views of the inbox, beside "Needs you", each with its icon (`gui.core.asks.approvers`).
OTHER_VIEWS: tuple[tuple[InboxView, str], ...] = (("waiting", "hourglass_top"), ("started_by_you", "play_circle"))
SOONEST = 0.02  # seconds: a request that comes later than this after the last change shows at once
STATUS_FILTERS = {"all": N_("All"), "resolved": N_("Answered"), "expired": N_("Expired"), "cancelled": N_("Cancelled")}
KIND_FILTERS = {"all": N_("All kinds"), "approval": N_("Approvals"), "question": N_("Questions"), "form": N_("Forms")}


async def inbox_page(ctx: AppContext) -> None:
    await InboxPage(ctx).build()


async def inbox_item_page(ctx: AppContext, interaction_id: str) -> None:
    await InboxPage(ctx, interaction_id).build()


class InboxPage:
    def __init__(self, ctx: AppContext, selected: str | None = None) -> None:
        self.ctx = ctx
        self.engine = ctx.engine
        self.requested = selected
        self.pending: list[InteractionRecord] = []
        self.page = 1
        self.rows: dict[str, InboxRow] = {}
        self.detail: InboxDetail | None = None
        self.answered: AnsweredCard | None = None  # "Your answer was sent…", while it is shown
        self.seen: set[str] = set()
        self.hovered = False
        self.stale_new = 0
        self.tab = "pending"
        self.history_built = False
        self.history_status = "all"
        self.history_kind = "all"
        self.history_page = 1
        # Who looks: the person a team server's sign-in put on the page's request; "you" on the desktop,
        # where everything needs you and the inbox looks as it always did.
        self.person = current_person().name
        self.team = self.person != DESKTOP_PERSON.name
        self.others: dict[InboxView, list[InteractionRecord]] = {"waiting": [], "started_by_you": []}
        self.other_boxes: dict[InboxView, tuple[ui.column, ui.column]] = {}
        self.other_tabs: dict[InboxView, ui.tab] = {}

    # -- building ------------------------------------------------------------------------------
    async def build(self) -> None:
        self.pending = await self._load_pending()
        self.client = context.client
        with frame(_("Inbox"), self.ctx):
            add_dark_css()
            self.keys = InboxShortcuts(move=self._move, opened=self._opened, active=lambda: self.tab == "pending")
            self.allowed = ui.row().classes("w-full items-center gap-2 rounded p-3 bg-green-50 text-green-900 "
                                            "dark:bg-green-950 dark:text-green-200")
            self.allowed.mark("allowed-banner")
            self.allowed.set_visibility(False)
            with ui.tabs(on_change=self._tab_changed).classes("w-full").props(
                    "align=left no-caps inline-label") as tabs:
                self.tab_pending = ui.tab("pending", label=self._pending_label(), icon="front_hand").mark(
                    "tab-pending")
                if self.team:
                    for view, icon in OTHER_VIEWS:
                        self.other_tabs[view] = ui.tab(view, label=self._other_label(view), icon=icon).mark(
                            f"tab-{view}")
                ui.tab("history", label=_("History"), icon="history").mark("tab-history")
                ui.space()
                ui.button(_("Shortcuts"), icon="keyboard", on_click=self.keys.show_help, color=None).props(
                    "flat dense no-caps").classes(f"text-gray-800 dark:text-gray-200 {PHONE_HIDDEN}").tooltip(
                    _("Keyboard shortcuts (press ?)")).mark("shortcuts-button")
            tabs.set_value("pending")  # before the panels bind to it (NiceGUI types `value=` without names)
            with ui.tab_panels(tabs, value="pending").classes("w-full bg-transparent"):
                with ui.tab_panel("pending").classes("p-0 pt-2"):
                    with ui.element("div").classes("w-full flex flex-col md:flex-row md:flex-nowrap gap-4 "
                                                   "items-start"):
                        with ui.column().classes("w-full md:w-2/5 gap-2 shrink-0").mark(
                                "pending-column") as left:
                            left.on("mouseenter", self._hover_start)
                            left.on("mouseleave", self._hover_end)
                            self.new_pill = ui.button("", icon="arrow_upward", on_click=self._show_stale).props(
                                "rounded unelevated no-caps dense color=deep-purple").classes("self-center px-3")
                            self.new_pill.mark("new-pill")
                            self.new_pill.set_visibility(False)
                            self.several = ui.button(_("Answer several…"), icon="checklist",
                                                     on_click=self._open_batch).props(
                                "flat dense no-caps").classes("self-end").mark("answer-several")
                            self.several.set_visibility(self._batchable() >= 2)
                            self.list_box = ui.column().classes("w-full gap-2").mark("pending-list")
                        self.detail_box = ui.column().classes("w-full md:flex-1 min-w-0 order-first md:order-none")
                for view in self.other_tabs:
                    with ui.tab_panel(view).classes("p-0 pt-2"):
                        with ui.element("div").classes("w-full flex flex-col md:flex-row md:flex-nowrap gap-4 "
                                                       "items-start"):
                            rows = ui.column().classes("w-full md:w-2/5 gap-2 shrink-0").mark(f"{view}-list")
                            shown = ui.column().classes("w-full md:flex-1 min-w-0 order-first md:order-none")
                        self.other_boxes[view] = (rows, shown)
                with ui.tab_panel("history").classes("p-0 pt-2"):
                    self.history_panel = ui.column().classes("w-full gap-2")
        self._render_list()
        await self._load_others()
        await self._initial_selection()
        live_events(self.engine, self._on_events, types=("interaction.",), soonest=SOONEST)
        ui.timer(1.0, self._tick)

    async def _load_pending(self) -> list[InteractionRecord]:
        records = await self.engine.inbox(self.person, "needs_you")  # on the desktop: every pending request
        return sorted(records, key=lambda r: r.request.created_at, reverse=True)

    def _pending_label(self) -> str:
        return _("Needs you ({n})").format(n=len(self.pending))

    def _other_label(self, view: InboxView) -> str:
        count = len(self.others[view])
        return (_("Waiting on others ({n})") if view == "waiting" else _("Started by you ({n})")).format(n=count)

    async def _load_others(self) -> None:
        """The team's other views (waiting on others, started by you), drawn as rows; a row opens the
        request beside them, which says whom it waits on."""
        for view, (rows, shown) in self.other_boxes.items():
            records = sorted(await self.engine.inbox(self.person, view), key=lambda r: r.request.created_at,
                             reverse=True)
            self.others[view] = records
            self.other_tabs[view].set_label(self._other_label(view))
            rows.clear()
            with rows:
                if not records:
                    ui.label(_("Nothing waits on other people.") if view == "waiting"
                             else _("No request of a run you started is waiting.")).classes(
                        "text-sm opacity-70 py-6").mark(f"{view}-empty")
                for record in records:
                    InboxRow(record, seen=True, selected=False, on_open=self._opener(view))
            if not any(isinstance(child, InboxDetail) for child in shown):
                shown.clear()

    def _opener(self, view: InboxView) -> Callable[[str], None]:
        return lambda interaction_id: self._open_other(view, interaction_id)

    def _open_other(self, view: InboxView, interaction_id: str) -> None:
        record = next((r for r in self.others[view] if r.interaction_id == interaction_id), None)
        if record is None:
            return
        shown = self.other_boxes[view][1]
        shown.clear()
        mine = any(r.interaction_id == interaction_id for r in self.pending)
        with shown:
            InboxDetail(record, respond=self.engine.respond, fetch=self.engine.get_interaction,
                        run_of=self.engine.get_run, on_answered=self._answered,
                        hand_over=self._hand_over if self.team else None, team=self.team,
                        waiting_on=None if mine else waiting_words(record))

    async def _hand_over(self, interaction_id: str, to: str, note: str) -> InteractionRecord:
        return await self.engine.hand_over(interaction_id, to, note, Answerer(person=self.person, via="app"))

    def _batchable(self) -> int:
        return sum(1 for r in self.pending if r.request.kind == "approval")

    def _open_batch(self) -> None:
        approvals = [r for r in self.pending if r.request.kind == "approval"]
        BatchDialog(approvals, self._respond_many, self._batch_done).open()

    async def _respond_many(self, answers: list[BatchAnswer]) -> list[BatchOutcome]:
        return await self.engine.respond_many(answers, Answerer(person=self.person, via="app"))

    async def _batch_done(self, outcomes: list[BatchOutcome]) -> None:
        ui.notify(outcome_words(outcomes), type="positive" if all(o.ok for o in outcomes) else "warning",
                  position="bottom")
        self.pending = await self._load_pending()
        self.tab_pending.set_label(self._pending_label())
        self._update_list()
        await self._load_others()
        self._show(self.pending[0] if self.pending else None)

    def _render_list(self) -> None:
        self.several.set_visibility(self._batchable() >= 2)
        self.stale_new = 0
        self.new_pill.set_visibility(False)
        self.list_box.clear()
        self.rows = {}
        total = len(self.pending)
        pages = max(1, math.ceil(total / PAGE_SIZE))
        self.page = min(self.page, pages)
        with self.list_box:
            if not total:
                with ui.column().classes("w-full items-center py-12 gap-2").mark("caught-up"):
                    ui.icon("task_alt", size="xl", color="positive")
                    ui.label(_("You're all caught up.")).classes("text-lg font-medium")
                    ui.label(_("When a run needs you, its request appears here.")).classes("text-sm opacity-70")
                return
            start = (self.page - 1) * PAGE_SIZE
            selected = self.detail.interaction_id if self.detail is not None else None
            for record in self.pending[start:start + PAGE_SIZE]:
                iid = record.interaction_id
                self.rows[iid] = InboxRow(record, seen=iid in self.seen, selected=iid == selected,
                                          on_open=self._open)
            if pages > 1:
                with ui.row().classes("w-full items-center justify-between"):
                    ui.label(_("{first}–{last} of {total}").format(first=start + 1, last=min(start + PAGE_SIZE, total),
                                                                    total=format_number(total))).classes(
                        "text-sm opacity-70").mark("page-range")
                    ui.pagination(1, pages, direction_links=True, value=self.page,
                                  on_change=self._page_changed).props("max-pages=6 boundary-numbers")

    def _update_list(self) -> None:
        """Draw the list as `self.pending` now is: on a list of one page, only the rows that came or
        went (a new request shows without redrawing the other forty-nine); otherwise all of it."""
        self.several.set_visibility(self._batchable() >= 2)
        shown = [r.interaction_id for r in self.pending]
        if (self.page != 1 or len(shown) > PAGE_SIZE or len(self.rows) >= PAGE_SIZE or not self.rows
                or not shown or self.new_pill.visible):
            self._render_list()
            return
        if shown == list(self.rows):
            return
        for gone in set(self.rows) - set(shown):
            self.list_box.remove(self.rows.pop(gone))
        selected = self.detail.interaction_id if self.detail is not None else None
        for index, record in enumerate(self.pending):
            iid = record.interaction_id
            if iid not in self.rows:
                with self.list_box:
                    row = InboxRow(record, seen=iid in self.seen, selected=iid == selected, on_open=self._open)
                row.move(target_index=index)
                self.rows[iid] = row
        self.rows = {iid: self.rows[iid] for iid in shown}

    def _page_changed(self, event: Any) -> None:
        if event.value and event.value != self.page:
            self.page = int(event.value)
            self._render_list()

    async def _initial_selection(self) -> None:
        if self.requested is not None:
            record = await self.engine.get_interaction(self.requested)
            if record is None:
                with self.detail_box:
                    with ui.card().props("flat bordered").classes("w-full p-6 items-center").mark("not-found"):
                        ui.icon("search_off", size="lg")
                        ui.label(_("There is no request with this id.")).classes("text-base")
                        ui.label(self.requested).classes(f"font-mono text-xs opacity-70 {DATA}")
                return
            self._show(record)
        elif self.pending:
            self._show(self.pending[0])

    # -- opening and answering -----------------------------------------------------------------
    async def _open(self, interaction_id: str) -> None:
        record = next((r for r in self.pending if r.interaction_id == interaction_id), None)
        if record is None:
            record = await self.engine.get_interaction(interaction_id)
        if record is not None:
            self._show(record)

    def _show(self, record: InteractionRecord | None) -> None:
        previous = self.detail.interaction_id if self.detail is not None else None
        self.detail_box.clear()
        self.detail = None
        self.answered = None
        if previous in self.rows:
            self.rows[previous].set_selected(False)
        if record is None:
            self._set_url("/inbox")
            return
        iid = record.interaction_id
        with self.detail_box:
            self.detail = InboxDetail(record, respond=self.engine.respond, fetch=self.engine.get_interaction,
                                      run_of=self.engine.get_run,
                                      on_answered=self._answered, hand_over=self._hand_over if self.team else None,
                                      team=self.team)
        self.keys.settle()
        self.seen.add(iid)
        if iid in self.rows:
            self.rows[iid].set_selected(True)
            self.rows[iid].set_seen(True)
        self._set_url(f"/inbox/{iid}")

    def _set_url(self, url: str) -> None:
        """Keep the address bar on the opened request (reload, share) without reloading the page."""
        self.client.run_javascript(f"history.replaceState(history.state, '', {json.dumps(url)})")

    async def _answered(self, record: InteractionRecord, response: InteractionResponse | None) -> None:
        if response is None:  # it still waits (approved by one of several, or handed over): lists change
            self.pending = await self._load_pending()
            self.tab_pending.set_label(self._pending_label())
            self._update_list()
            await self._load_others()
            fresh = next((r for r in self.pending if r.interaction_id == record.interaction_id), None)
            if fresh is not None and self.detail is not None and self.detail.interaction_id == fresh.interaction_id:
                self._show(fresh)  # still the person's to answer (handed over): drawn as it is now
            return
        order = [r.interaction_id for r in self.pending]
        # Asked in the store's listing lane, behind the writes of the run this answer let go on (its
        # command is recorded before it starts): the run starts first, this page redraws after.
        self.pending = await self._load_pending()
        still = {r.interaction_id for r in self.pending}
        position = order.index(record.interaction_id) if record.interaction_id in order else 0
        following = [i for i in order[position + 1:] + order[:position][::-1] if i in still]
        self.tab_pending.set_label(self._pending_label())
        ui.notify(fmt.answered_words(record, response), type="positive", position="bottom")
        tool = fmt.tool_name(record.request)
        if isinstance(response, ApprovalResponse) and response.widens and tool:
            await self._show_allowed(tool, response)
        self._update_list()
        # The next one after it in the list as it was; else whatever the list holds now (a request
        # can appear while this answer is sent: the run's next step, another run).
        nxt = next((r for r in self.pending if following and r.interaction_id == following[0]), None)
        self._show(nxt or (self.pending[0] if self.pending else None))
        if self.detail is None and record.request.turn_id:
            with self.detail_box:
                self.answered = AnsweredCard(record.request.turn_id, open_first=self._open_first)
            self.answered.follow(len(self.pending))

    def _open_first(self) -> None:
        if self.pending:
            self._show(self.pending[0])

    async def _show_allowed(self, tool: str, response: ApprovalResponse) -> None:
        rules = [r for r in await self.engine.approval_rules() if r.tool == tool and r.scope == response.scope]
        rule = rules[-1] if response.scope != "tool" and rules else None
        show_allowed(self.allowed, tool, rule, revoke=self.engine.revoke_approval_rule)

    # -- keys ------------------------------------------------------------------------------------
    def _opened(self) -> tuple[str | None, InboxDetail | None]:
        return (self.detail.answerable_kind if self.detail is not None else None), self.detail

    def _move(self, delta: int) -> None:
        """Open the next (+1) or previous (-1) pending request, turning the list's page if needed."""
        if not self.pending:
            return
        ids = [r.interaction_id for r in self.pending]
        current = self.detail.interaction_id if self.detail is not None else None
        if current in ids:
            index = min(max(ids.index(current) + delta, 0), len(ids) - 1)
            if ids[index] == current:
                return
        else:
            index = 0 if delta > 0 else len(ids) - 1
        page = index // PAGE_SIZE + 1
        if page != self.page:
            self.page = page
            self._render_list()
        self._show(self.pending[index])
        row = self.rows.get(ids[index])
        if row is not None:
            ui.run_javascript(f"getHtmlElement({row.id})?.scrollIntoView({{block: 'nearest'}})")

    # -- live ------------------------------------------------------------------------------------
    async def _on_events(self, events: list[Event]) -> None:
        if self.detail is not None and self.detail.answered_here:
            # The end of the request answered on this page: `_answered` redraws for it, once, after the
            # work it let go on (its command's start) has had the loop first.
            answered = self.detail.interaction_id
            events = [e for e in events if not (isinstance(e, InteractionEnded) and e.interaction_id == answered)]
            if not events:
                return
        ended: dict[str, dict[str, Any]] = {}
        created = 0
        if self.team or any(isinstance(event, InteractionChanged) for event in events):
            # whose a request is depends on more than the events say (approvals, hand-overs, roles)
            await self._load_others()
            if any(isinstance(event, InteractionChanged) for event in events):
                self.pending = await self._load_pending()
                await self._show_changes({}, 0, changed=True)
        for event in events:
            if isinstance(event, InteractionEnded):
                ended[event.interaction_id] = event.record
            elif isinstance(event, InteractionCreated) and event.record.get("status") == "pending":
                created += 1
        if not created and not (set(ended) & {r.interaction_id for r in self.pending}) and (
                self.detail is None or self.detail.interaction_id not in ended) and self.tab != "history":
            return  # only what this page already shows as gone (its own answers): nothing to draw or ask
        drawn = pending_after(self.pending, events)  # drawn at once; the store is asked after
        self.pending = drawn
        await self._show_changes(ended, created)
        stored = await self._load_pending()
        self.pending = stored
        now, shown = {r.interaction_id for r in stored}, {r.interaction_id for r in drawn}
        if now != shown:  # what the events did not say (before this page listened): drawn as well
            await self._show_changes({}, len(now - shown), changed=True)

    async def _show_changes(self, ended: dict[str, dict[str, Any]], created: int, *, changed: bool = False) -> None:
        self.tab_pending.set_label(self._pending_label())
        detail = self.detail
        if detail is not None and detail.interaction_id in ended and detail.record.status == "pending":
            detail.show_ended(InteractionRecord.model_validate(ended[detail.interaction_id]))
        if created or ended or changed:
            self.keys.settle()  # the list changed under the person: answering keys wait a moment
            if self.hovered:
                self.stale_new += created
                self.new_pill.set_text(_("{n} new · Show").format(n=self.stale_new) if self.stale_new
                                      else _("Updated · Show"))
                self.new_pill.set_visibility(True)
            else:
                self._update_list()
        if self.detail is None and self.pending and not self.hovered:
            await asyncio.sleep(0)  # the new row goes to the browser first; the opened request follows
            if self.detail is None and self.pending and not self.hovered:
                self._show(self.pending[0])
        if self.answered is not None:
            self.answered.follow(len(self.pending))  # the words beside the list follow the list
        if self.history_built and self.tab == "history":
            self._render_history_list(await self._load_history())

    def _hover_start(self) -> None:
        self.hovered = True

    def _hover_end(self) -> None:
        self.hovered = False
        if self.new_pill.visible:
            self._render_list()
        if self.detail is None and self.pending:
            self._show(self.pending[0])

    def _show_stale(self) -> None:
        self._render_list()

    def _tick(self) -> None:
        now = fmt.now_ms()
        for row in self.rows.values():
            if row.countdown is not None:
                row.countdown.tick(now)
        if self.detail is not None:
            self.detail.tick(now)

    # -- history ---------------------------------------------------------------------------------
    async def _tab_changed(self, event: Any) -> None:
        self.tab = str(event.value)
        if self.tab != "history":
            return
        if not self.history_built:
            self.history_built = True
            with self.history_panel:
                with ui.row().classes("w-full items-center gap-4"):
                    ui.toggle({k: _(v) for k, v in STATUS_FILTERS.items()}, value=self.history_status,
                              on_change=self._filter_status).props(
                        "no-caps dense unelevated toggle-color=primary").mark("filter-status")
                    ui.toggle({k: _(v) for k, v in KIND_FILTERS.items()}, value=self.history_kind,
                              on_change=self._filter_kind).props(
                        "no-caps dense unelevated toggle-color=primary").mark("filter-kind")
                self.history_list = ui.column().classes("w-full gap-2 history-list").mark("history-list")
        self._render_history_list(await self._load_history())

    async def _filter_status(self, event: Any) -> None:
        self.history_status, self.history_page = str(event.value or "all"), 1
        self._render_history_list(await self._load_history())

    async def _filter_kind(self, event: Any) -> None:
        self.history_kind, self.history_page = str(event.value or "all"), 1
        self._render_history_list(await self._load_history())

    async def _load_history(self) -> Page[InteractionRecord]:
        """One page of what ended (a store query: fifty, and how many match in all)."""
        status = HISTORY_STATUSES.get(self.history_status, "ended")
        kind = HISTORY_KINDS.get(self.history_kind)
        page = await self.engine.interaction_page(status=status, kind=kind, limit=PAGE_SIZE,
                                                  offset=(self.history_page - 1) * PAGE_SIZE)
        pages = max(1, math.ceil(page.total / PAGE_SIZE))
        if self.history_page > pages:  # fewer than before: show the last page there is
            self.history_page = pages
            return await self._load_history()
        return page

    def _render_history_list(self, page: Page[InteractionRecord]) -> None:
        self.history_list.clear()
        total = page.total
        pages = max(1, math.ceil(total / PAGE_SIZE))
        with self.history_list:
            if not total:
                filtered = self.history_status != "all" or self.history_kind != "all"
                ui.label(_("Nothing matches these filters.") if filtered else _("Nothing has been answered yet.")
                         ).classes("text-sm opacity-70 py-6").mark("history-empty")
                return
            start = (self.history_page - 1) * PAGE_SIZE
            run_of = remembered(self.engine.get_run)  # a page's rows often share a run: asked once each
            for record in page.items:
                HistoryRow(record, run_of)
            with ui.row().classes("w-full items-center justify-between flex-wrap gap-2"):
                ui.label(_("{first}–{last} of {total}").format(
                    first=format_number(start + 1), last=format_number(start + len(page.items)),
                    total=format_number(total))).classes(
                    "text-sm opacity-70").mark("history-range")
                if pages > 1:
                    ui.pagination(1, pages, direction_links=True, value=self.history_page,
                                  on_change=self._history_page_changed).props("max-pages=6 boundary-numbers").mark(
                        "history-pager")

    async def _history_page_changed(self, event: Any) -> None:
        if event.value and event.value != self.history_page:
            self.history_page = int(event.value)
            self._render_history_list(await self._load_history())
