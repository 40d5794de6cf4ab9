"""Words, icons and times for the inbox, in one place so every row, card and history entry agrees.

People read these, not developers: verbs for titles ("Run a command"), clock times they can act
on ("If nobody answers by 14:32, the command won't run."), and an icon *plus* a word for every
state (never colour alone). Pure functions: no NiceGUI, easy to test.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from gui.core.interactions import (
    CANCEL_WORDS,
    ApprovalResponse,
    CancelledResult,
    ElicitationInteractionRequest,
    ElicitationInteractionResponse,
    InteractionRecord,
    InteractionRequest,
    QuestionRequest,
    QuestionResponse,
    ResolvedResult,
    ShellApprovalRequest,
    ToolApprovalRequest,
    ToolSource,
)
from gui.core.rules import scope_words
from gui.ui.words import NOTHING, field_word

Request = ShellApprovalRequest | ToolApprovalRequest | QuestionRequest | ElicitationInteractionRequest

KIND_ICONS = {"shell": "terminal", "tool": "build", "question": "help_outline", "form": "assignment"}
KIND_WORDS = {"shell": "Command", "tool": "Tool", "question": "Question", "form": "Form"}

_MARKDOWN = re.compile(r"[*_`#>]+")



@dataclass(frozen=True)
class Outcome:
    """How a request ended, for a chip: word, Material icon, Quasar colour, and the details."""

    word: str
    icon: str
    color: str
    details: str = ""


WAITING = Outcome("Waiting for you", "front_hand", "deep-purple")


def kind(request: Request) -> str:
    if isinstance(request, ShellApprovalRequest):
        return "shell"
    if isinstance(request, ToolApprovalRequest):
        return "tool"
    if isinstance(request, QuestionRequest):
        return "question"
    return "form"


def tool_name(request: Request) -> str | None:
    return request.source.tool_name if isinstance(request.source, ToolSource) else None


def title(request: Request) -> str:
    """The verb title of a request: what it wants the person to allow or do."""
    if isinstance(request, ShellApprovalRequest):
        return request.title or {"write": "Write a file", "start": "Start a program"}.get(
            request.operation, "Run a command")
    if isinstance(request, ToolApprovalRequest):
        return f"Use tool: {tool_name(request) or 'a tool'}"
    if isinstance(request, QuestionRequest):
        return "Question"
    return f"Form from {request.server_name}"


def preview(request: Request) -> str:
    """One line that tells requests of the same kind apart (the command, the question...)."""
    if isinstance(request, ShellApprovalRequest):
        return " ".join(request.command.split())
    if isinstance(request, ToolApprovalRequest):
        return one_line(request.validated_input)
    if isinstance(request, QuestionRequest):
        return request.title or request.questions[0].prompt
    return " ".join(_MARKDOWN.sub("", request.message or request.url or "").split())


def source_parts(request: Request) -> list[str]:
    """sequence › group › tool, whichever are known."""
    parts = [request.sequence_name, request.group_name, tool_name(request) or ""]
    return [p for p in parts if p]


def one_line(value: Any, limit: int = 160) -> str:
    """Arguments on one line, named as people read them ("File: /x", never `path` or `null`)."""
    if isinstance(value, dict):
        text = ", ".join(f"{field_word(str(k))}: {_scalar(v)}" for k, v in value.items() if v is not None)
    else:
        text = _scalar(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _scalar(value: Any) -> str:
    if value is None:
        return NOTHING
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# -- times -------------------------------------------------------------------------------------

def now_ms() -> int:
    return int(time.time() * 1000)


def clock(ms: int, now: int | None = None) -> str:
    """14:32 today, "3 Mar 14:32" on another day (local time: this is a desktop app)."""
    at = time.localtime(ms / 1000)
    today = time.localtime((now if now is not None else now_ms()) / 1000)
    if (at.tm_year, at.tm_yday) == (today.tm_year, today.tm_yday):
        return time.strftime("%H:%M", at)
    return f"{at.tm_mday} {time.strftime('%b %H:%M', at)}"


def age(ms: int, now: int | None = None) -> str:
    seconds = max(0, ((now if now is not None else now_ms()) - ms) // 1000)
    if seconds < 45:
        return "just now"
    if seconds < 3600:
        return f"{max(1, round(seconds / 60))} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h ago"
    days = seconds // 86400
    return f"{days} day{'s' if days != 1 else ''} ago"


def time_left(expires_at: int, now: int | None = None) -> str:
    """ "4:12 left", "1:02:03 left"; "Expired" when the time is up."""
    left = (expires_at - (now if now is not None else now_ms())) // 1000
    if left <= 0:
        return "Expired"
    hours, rest = divmod(left, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d} left"
    return f"{minutes}:{seconds:02d} left"


def urgent(expires_at: int, now: int | None = None) -> bool:
    return expires_at - (now if now is not None else now_ms()) < 60_000


def expiry_sentence(request: Request, now: int | None = None) -> str:
    """What happens if nobody answers in time, said as a consequence."""
    if request.expires_at is None:
        return ""
    by = clock(request.expires_at, now)
    if isinstance(request, ShellApprovalRequest):
        what = "the command won't run" if request.operation != "write" else "nothing will be written"
    elif isinstance(request, ToolApprovalRequest):
        what = f"{tool_name(request) or 'the tool'} won't run"
    elif isinstance(request, QuestionRequest):
        what = "the question goes unanswered and its step fails"
    else:
        what = f"the form is dismissed and {request.server_name} gets nothing"
    return f"If nobody answers by {by}, {what}."


# -- outcomes ----------------------------------------------------------------------------------

def _edit_words(edited: dict[str, Any]) -> str:
    """An edit as the person made it: the command itself, or the arguments."""
    command = edited.get("command")
    return str(command) if isinstance(command, str) else json.dumps(edited, ensure_ascii=False)


def outcome(record: InteractionRecord) -> Outcome:
    """The chip for an ended request, with what was decided in words."""
    result = record.result
    if record.status == "pending" or result is None:
        return WAITING
    if record.status == "expired":
        return Outcome("Expired", "timer_off", "grey-7", "Nobody answered in time — nothing was sent")
    if isinstance(result, CancelledResult):
        return Outcome("Cancelled", "block", "grey-7", f"Cancelled: {CANCEL_WORDS.get(result.reason, result.reason)}")
    assert isinstance(result, ResolvedResult)
    response = result.response
    if isinstance(response, ApprovalResponse):
        if response.decision == "denied":
            return Outcome("Denied", "cancel", "negative", f"Reason: {response.reason}" if response.reason else "")
        if record.auto:
            why = f"by the rule: {record.rule_text}" if record.rule_text else "this tool is always allowed"
            return Outcome("Approved", "bolt", "positive", f"Approved automatically: {why}")
        tool = tool_name(record.request)
        edit = f"with an edit: {_edit_words(response.edited_input)}" if response.edited_input is not None else ""
        if response.scope == "tool" and tool:
            return Outcome("Approved", "check_circle", "positive",
                           "; ".join(w for w in (f"and {tool} is now always allowed", edit) if w))
        if response.scope != "once":
            widened = f"and from now on without asking: {scope_words(response.scope, record.request, response.prefix)}"
            return Outcome("Approved", "check_circle", "positive", "; ".join(w for w in (widened, edit) if w))
        return Outcome("Approved", "check_circle", "positive", edit)
    if isinstance(response, QuestionResponse) and response.declined:
        return Outcome("Declined", "do_not_disturb_on", "negative", "Chose not to answer")
    if isinstance(response, QuestionResponse) and isinstance(record.request, QuestionRequest):
        return Outcome("Answered", "chat", "primary", answers_text(record.request, response))
    if isinstance(response, ElicitationInteractionResponse):
        if response.action == "accept":
            shown = "; ".join(f"{k} = {_scalar(v)}" for k, v in response.values.items())
            return Outcome("Sent", "send", "primary", shown)
        if response.action == "decline":
            return Outcome("Not shared", "do_not_disturb_on", "negative", "Chose not to share")
        return Outcome("Dismissed", "close", "grey-7", "Dismissed without an answer")
    return Outcome("Answered", "chat", "primary")


def answers_text(request: QuestionRequest, response: QuestionResponse) -> str:
    """ "Environment: Production; Notes: hello", using the options' labels where there are some."""
    by_id = {q.question_id: q for q in request.questions}
    given = {a.question_id for a in response.answers}
    parts = []
    for answer in response.answers:
        question = by_id.get(answer.question_id)
        labels = {o.value: o.label for o in (question.options or [])} if question else {}
        values = answer.value if isinstance(answer.value, list) else [answer.value]
        shown = ", ".join(labels.get(v, v) for v in values) or "(nothing chosen)"
        prompt = question.prompt if question else answer.question_id
        parts.append(f"{prompt} {shown}" if prompt.endswith(("?", ":")) else f"{prompt}: {shown}")
    parts.extend(f"{q.prompt} (skipped)" for q in request.questions if q.question_id not in given)
    return "; ".join(parts)


def not_done(request: InteractionRequest) -> str:
    """What did not happen because nobody answered in time."""
    if isinstance(request, ShellApprovalRequest):
        return "nobody answered, so the command did not run"
    if isinstance(request, ToolApprovalRequest):
        return "nobody answered, so the tool did not run"
    return "nobody answered, so the step went on without an answer"


def ended_headline(record: InteractionRecord, now: int | None = None) -> str:
    """The banner on a request that can no longer be answered."""
    at = clock(record.resolved_at, now) if record.resolved_at else ""
    if record.status == "expired":
        return f"Expired at {at} — nothing was sent: {not_done(record.request)}" if at else \
            f"Expired — nothing was sent: {not_done(record.request)}"
    if record.status == "cancelled":
        why = CANCEL_WORDS[record.result.reason] if isinstance(record.result, CancelledResult) else "it was cancelled"
        return f"Cancelled{' at ' + at if at else ''}: {why}"
    result = outcome(record)
    head = f"Already answered{' at ' + at if at else ''}: {result.word}"
    return head + (f" — {result.details}" if result.details else "")
