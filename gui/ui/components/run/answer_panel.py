"""A request answered where the person already is: the inbox's own card, in a panel beside the run.

The run panel's "Answer here" opens it; it shows exactly what the inbox shows for that request
(`InboxDetail`: the command in full, the scope choices, the question form), so a request reads and
answers the same in both places. Closing the panel answers nothing: the request stays pending.
Once answered, the panel closes itself and the run goes on under it.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.asks import InteractionRecord, InteractionResponse
from gui.i18n import _
from gui.ui.components.inbox.detail import Fetch, InboxDetail, Respond
from gui.ui.components.run.link import RunOf
from gui.wording import requests as fmt


class AnswerPanel(ui.dialog):
    def __init__(self, *, respond: Respond, fetch: Fetch, run_of: RunOf | None = None) -> None:
        super().__init__()
        self.props("position=right full-height")
        self._respond = respond
        self._fetch = fetch
        self._run_of = run_of
        self.detail: InboxDetail | None = None
        with self, ui.card().classes("w-[36rem] max-w-[100vw] h-full gap-2 p-0 rounded-none no-wrap").mark(
                "answer-panel"):
            with ui.row(wrap=False).classes("w-full items-center gap-2 px-4 pt-3"):
                ui.label(_("Your answer is needed")).classes("text-lg font-semibold grow")
                ui.button(icon="close", on_click=self.close).props(
                    "flat round dense aria-label='" + _("Close (the request stays waiting)") + "'").tooltip(
                    _("Close: the request stays waiting for you")).mark("answer-panel-close")
            self.body = ui.column().classes("w-full gap-2 px-4 pb-4 overflow-y-auto")
        self._timer = ui.timer(1.0, self._tick, active=False)

    async def show_request(self, interaction_id: str) -> None:
        record = await self._fetch(interaction_id)
        self.body.clear()
        self.detail = None
        with self.body:
            if record is None:
                ui.label(_("This request is not there any more.")).classes("text-gray-700 dark:text-gray-300")
            else:
                self.detail = InboxDetail(record, respond=self._respond, fetch=self._fetch,
                                          on_answered=self._answered, run_of=self._run_of)
        self._timer.activate()
        self.open()

    async def _answered(self, record: InteractionRecord, response: InteractionResponse | None) -> None:
        if response is None:  # it still waits (one approval of several, or handed over): the card says so
            return
        ui.notify(answered_words(record, response), type="positive", position="bottom")
        self._timer.deactivate()
        self.close()

    def ended_elsewhere(self, record: InteractionRecord) -> None:
        """The opened request ended in another tab or by its deadline: say so, disable its buttons."""
        if self.detail is not None and self.detail.interaction_id == record.interaction_id and not self.detail.ended:
            self.detail.show_ended(record)

    def _tick(self) -> None:
        if self.detail is not None:
            self.detail.tick(fmt.now_ms())


def answered_words(record: InteractionRecord, response: InteractionResponse) -> str:
    from gui.core.asks import ApprovalResponse, QuestionResponse

    if isinstance(response, ApprovalResponse):
        return _("Approved: it runs now.") if response.decision == "approved" else _("Denied: it won't run.")
    if isinstance(response, QuestionResponse):
        return _("Declined.") if response.declined else _("Answer sent.")
    return _("Sent.")
