"""Questions from a run (the `ask_user` tool): a text box, radio buttons or checkboxes for each.

"Send answer" first checks that every required question has an answer and marks the ones that do
not, next to the question, keeping what was typed. An optional question says so and can be skipped
("Skip this question", or simply left empty). "Decline to answer" refuses the whole request: the
step that asked is told so, and nothing typed is sent.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.asks import Answer, Question, QuestionRequest, QuestionResponse
from gui.i18n import _, ngettext
from gui.ui.components.inbox.body import RequestBody, Submit

MUTED = "text-xs text-gray-600 dark:text-gray-400"


class QuestionForm(RequestBody):
    def __init__(self, request: QuestionRequest, *, submit: Submit) -> None:
        super().__init__(submit)
        self.mark("question-form")
        self.questions = request.questions
        self._inputs: dict[str, ui.input | ui.radio] = {}
        self._checks: dict[str, dict[str, ui.checkbox]] = {}
        self._skips: dict[str, ui.checkbox] = {}
        self._errors: dict[str, ui.label] = {}
        with self:
            if request.title:
                ui.label(request.title).classes("text-base font-medium")
            for question in request.questions:
                self._question(question)
            self.problem = ui.label("").classes("text-negative text-sm").mark("question-problem")
            self.problem.set_visibility(False)
            with ui.row().classes("gap-2 items-center"):
                self.control(ui.button(_("Send answer"), icon="send", on_click=self._send)
                             .props("no-caps unelevated color=primary").mark("send-answer"))
                self.control(ui.button(_("Decline to answer"), icon="do_not_disturb_on", on_click=self._decline)
                             .props("no-caps outline color=negative")
                             .tooltip(_("Answer none of these: the step that asked is told you declined"))
                             .mark("decline-question"))

    def _question(self, question: Question) -> None:
        qid = question.question_id
        with ui.column().classes("w-full gap-1").mark(f"question-{qid}"):
            with ui.row().classes("items-baseline gap-2"):
                ui.label(question.prompt).classes("text-sm font-medium")
                if not question.required:
                    ui.label(_("optional")).classes(MUTED + " italic").mark(f"q-{qid}-optional")
            options = question.options or []
            parts: list[ui.element] = []
            if question.response_type == "text":
                self._inputs[qid] = self.control(
                    ui.input(placeholder=_("Your answer")).props("outlined dense").classes("w-full").mark(f"q-{qid}"))
                parts.append(self._inputs[qid])
            elif question.response_type == "single_select":
                labels = {o.value: o.label for o in options}
                self._inputs[qid] = self.control(ui.radio(labels).mark(f"q-{qid}"))
                parts.append(self._inputs[qid])
                for option in options:
                    if option.description:
                        ui.label(f"{option.label}: {option.description}").classes(MUTED + " pl-8")
            else:
                boxes = {}
                for option in options:
                    with ui.column().classes("gap-0"):
                        boxes[option.value] = self.control(ui.checkbox(option.label).mark(f"q-{qid}-{option.value}"))
                        if option.description:
                            ui.label(option.description).classes(MUTED + " pl-10 -mt-2")
                self._checks[qid] = boxes
                parts.extend(boxes.values())
                ui.label(_("Choose any number, or none.")).classes(MUTED)
            if not question.required:
                skip = self.control(ui.checkbox(_("Skip this question")).props("dense").classes("text-sm")
                                    .mark(f"q-{qid}-skip"))
                skip.on_value_change(lambda e, parts=parts: [p.set_enabled(not e.value) for p in parts])
                self._skips[qid] = skip
            self._errors[qid] = ui.label("").classes("text-negative text-xs").mark(f"q-{qid}-error")
            self._errors[qid].set_visibility(False)

    def unlock(self) -> None:
        super().unlock()
        for qid, skip in self._skips.items():  # a skipped question's controls stay off
            if skip.value:
                for element in (self._inputs.get(qid), *self._checks.get(qid, {}).values()):
                    if element is not None:
                        element.disable()

    def answers(self) -> tuple[list[Answer], list[str]]:
        """The answers given so far, and the ids of required questions still without one.
        A skipped (or empty) optional question has no answer at all."""
        answers: list[Answer] = []
        missing: list[str] = []
        for question in self.questions:
            qid = question.question_id
            if qid in self._skips and self._skips[qid].value:
                continue
            if qid in self._checks:
                chosen = [value for value, box in self._checks[qid].items() if box.value]
                if chosen or question.required:
                    answers.append(Answer(question_id=qid, value=chosen))
                continue
            value = self._inputs[qid].value
            if isinstance(value, str) and value.strip():
                answers.append(Answer(question_id=qid, value=value if question.response_type != "text"
                                      else value.strip()))
            elif question.required:
                missing.append(qid)
        return answers, missing

    async def _send(self) -> None:
        answers, missing = self.answers()
        for qid, label in self._errors.items():
            label.set_text(_("Answer this question") if qid in missing else "")
            label.set_visibility(qid in missing)
        if missing:
            count = len(missing)
            self.problem.set_text(ngettext(
                "{count} question still needs an answer: every question must be answered before sending, "
                "except those marked optional.",
                "{count} questions still need an answer: every question must be answered before sending, "
                "except those marked optional.", count).format(count=count))
            self.problem.set_visibility(True)
            return
        self.problem.set_visibility(False)
        await self.send(QuestionResponse(answers=answers))

    async def _decline(self) -> None:
        self.problem.set_visibility(False)
        await self.send(QuestionResponse(decision="declined"))
