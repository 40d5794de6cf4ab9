"""Questions from a run (the `ask_user` tool): a text box, radio buttons or checkboxes for each.

The service accepts only a complete set of answers, so "Send answer" first checks that every
question has one and marks the ones that do not, next to the question, keeping what was typed.
"""

from __future__ import annotations

from nicegui import ui

from gui.core.interactions import Answer, Question, QuestionRequest, QuestionResponse
from gui.ui.components.inbox.body import RequestBody, Submit


class QuestionForm(RequestBody):
    def __init__(self, request: QuestionRequest, *, submit: Submit) -> None:
        super().__init__(submit)
        self.mark("question-form")
        self.questions = request.questions
        self._inputs: dict[str, ui.input | ui.radio] = {}
        self._checks: dict[str, dict[str, ui.checkbox]] = {}
        self._errors: dict[str, ui.label] = {}
        with self:
            if request.title:
                ui.label(request.title).classes("text-base font-medium")
            for question in request.questions:
                self._question(question)
            self.problem = ui.label("").classes("text-negative text-sm").mark("question-problem")
            self.problem.set_visibility(False)
            self.control(ui.button("Send answer", icon="send", on_click=self._send)
                         .props("no-caps unelevated color=primary").mark("send-answer"))

    def _question(self, question: Question) -> None:
        qid = question.question_id
        with ui.column().classes("w-full gap-1"):
            ui.label(question.prompt).classes("text-sm font-medium")
            options = question.options or []
            if question.response_type == "text":
                self._inputs[qid] = self.control(
                    ui.input(placeholder="Your answer").props("outlined dense").classes("w-full").mark(f"q-{qid}"))
            elif question.response_type == "single_select":
                labels = {o.value: o.label for o in options}
                self._inputs[qid] = self.control(ui.radio(labels).mark(f"q-{qid}"))
                for option in options:
                    if option.description:
                        ui.label(f"{option.label}: {option.description}").classes("text-xs opacity-70 pl-8")
            else:
                boxes = {}
                for option in options:
                    with ui.column().classes("gap-0"):
                        boxes[option.value] = self.control(ui.checkbox(option.label).mark(f"q-{qid}-{option.value}"))
                        if option.description:
                            ui.label(option.description).classes("text-xs opacity-70 pl-10 -mt-2")
                self._checks[qid] = boxes
                ui.label("Choose any number, or none.").classes("text-xs opacity-70")
            self._errors[qid] = ui.label("").classes("text-negative text-xs").mark(f"q-{qid}-error")
            self._errors[qid].set_visibility(False)

    def answers(self) -> tuple[list[Answer], list[str]]:
        """The answers given so far, and the prompts of the questions still without one."""
        answers: list[Answer] = []
        missing: list[str] = []
        for question in self.questions:
            qid = question.question_id
            if qid in self._checks:
                chosen = [value for value, box in self._checks[qid].items() if box.value]
                answers.append(Answer(question_id=qid, value=chosen))
                continue
            value = self._inputs[qid].value
            if isinstance(value, str) and value.strip():
                answers.append(Answer(question_id=qid, value=value if question.response_type != "text"
                                      else value.strip()))
            else:
                missing.append(qid)
        return answers, missing

    async def _send(self) -> None:
        answers, missing = self.answers()
        for qid, label in self._errors.items():
            label.set_text("Answer this question" if qid in missing else "")
            label.set_visibility(qid in missing)
        if missing:
            count = len(missing)
            self.problem.set_text(f"{count} question{'s' if count != 1 else ''} still need{'s' if count == 1 else ''} "
                                  "an answer: every question must be answered before sending.")
            self.problem.set_visibility(True)
            return
        self.problem.set_visibility(False)
        await self.send(QuestionResponse(answers=answers))
