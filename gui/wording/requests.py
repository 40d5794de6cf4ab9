"""Words, icons and times for the inbox, in one place so every row, card and history entry agrees.

People read these, not developers: verbs for titles ("Run a command"), clock times they can act
on ("If nobody answers by 14:32, the command won't run."), and an icon *plus* a word for every
state (never colour alone). Pure functions: no NiceGUI, easy to test.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gui.core.asks import (
    CANCEL_WORDS,
    ApprovalResponse,
    CancelledResult,
    ElicitationRequest,
    ElicitationResponse,
    InteractionRecord,
    InteractionRequest,
    InteractionResponse,
    ProgramSource,
    QuestionRequest,
    QuestionResponse,
    ResolvedResult,
    ShellApprovalRequest,
    ToolApprovalRequest,
    ToolSource,
    cancel_cause,
    rule_text_words,
    scope_words,
)
from gui.core.causes import CAUSES
from gui.i18n import ENGLISH, N_, _, current_language, format_datetime, ngettext
from gui.wording.changes import change_words, value_text
from gui.wording.glossary import NOTHING, field_word

Request = ShellApprovalRequest | ToolApprovalRequest | QuestionRequest | ElicitationRequest

KIND_ICONS = {"shell": "terminal", "tool": "build", "question": "help_outline", "form": "assignment"}
KIND_WORDS = {"shell": N_("Command"), "tool": N_("Tool"), "question": N_("Question"), "form": N_("Form")}

_MARKDOWN = re.compile(r"[*_`#>]+")



@dataclass(frozen=True)
class Outcome:
    """How a request ended, for a chip: word, Material icon, Quasar colour, and the details."""

    english: str  # the word as written (marked with N_); `word` is it in the person's language
    icon: str
    color: str
    details: str = ""

    @property
    def word(self) -> str:
        return _(self.english)


WAITING = Outcome(N_("Waiting for you"), "front_hand", "deep-purple")


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


def server_of(request: Request) -> str | None:
    """The name of the MCP server whose tool asks, as the person named it in Settings (its tools are named
    `server.tool`, and a server's name has no dot); None for a built-in tool."""
    if not getattr(request, "server_address", None):
        return None
    name = tool_name(request)
    return name.split(".", 1)[0] if name and "." in name else None


def server_place(address: str) -> str:
    """Where a server is, in words: "at https://…" for a web address, "the program /usr/bin/npx" otherwise."""
    if address.startswith(("http://", "https://")):
        return _("at {address}").format(address=address)
    return _("the program {path}").format(path=address)


def asker(request: Request) -> str | None:
    """A program that asked (`seqdesk ask`), as the person reads it: a program, with the name it gave
    itself as its claim, never as a tool they set up; None when no program asked."""
    if not isinstance(request.source, ProgramSource):
        return None
    name = request.source.asker
    return _("a program (it says it is “{name}”)").format(name=name) if name else _("a program (it gave no name)")


def title(request: Request) -> str:
    """The verb title of a request: what it wants the person to allow or do."""
    if isinstance(request.source, ProgramSource) and isinstance(request, ShellApprovalRequest | QuestionRequest):
        said = request.title or (_("Question") if isinstance(request, QuestionRequest)
                                 else _("Run a command") if request.command else _("Approve"))
        return _("A program asks: {title}").format(title=said)  # its words as they are: never a catalogue's
    if isinstance(request, ShellApprovalRequest):
        verb = {"write": N_("Write a file"), "start": N_("Start a program")}.get(request.operation)
        return _(request.title) if request.title else _(verb or N_("Run a command"))  # a built-in tool's title
    if isinstance(request, ToolApprovalRequest):
        return _("Use tool: {tool}").format(tool=tool_name(request) or _("a tool"))
    if isinstance(request, QuestionRequest):
        return _("Question")
    return _("Form from {server}").format(server=request.server_name)


def preview(request: Request) -> str:
    """One line that tells requests of the same kind apart (the command, the question...)."""
    if isinstance(request, ShellApprovalRequest):
        return " ".join(request.command.split())
    if isinstance(request, ToolApprovalRequest):
        return one_line(request.validated_input, request.input_titles)
    if isinstance(request, QuestionRequest):
        return request.title or request.questions[0].prompt
    return " ".join(_MARKDOWN.sub("", request.message or request.url or "").split())


def source_parts(request: Request) -> list[str]:
    """sequence › group › tool (› on the host it runs on), whichever are known; or the program that asked."""
    parts = [request.sequence_name, request.group_name, tool_name(request) or asker(request) or ""]
    host = getattr(request, "host", None)
    if host:
        parts.append(_("on {host}").format(host=host))
    return [p for p in parts if p]


def input_label(name: str, titles: Mapping[str, str] | None = None) -> str:
    """An argument as a person reads it: the tool's own title for it ("Time limit (seconds)", in the
    person's language when it is one of the app's own), else the word list's ("Folder", never `cwd`)."""
    title = titles.get(name) if titles else None
    return _(title) if title else _(field_word(name))


def one_line(value: Any, titles: Mapping[str, str] | None = None, limit: int = 160) -> str:
    """Arguments on one line, named as people read them ("File: /x", never `path` or `null`)."""
    if isinstance(value, dict):
        text = _(", ").join(_("{name}: {value}").format(name=input_label(str(k), titles), value=_scalar(v))
                            for k, v in value.items() if v is not None)
    else:
        text = _scalar(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _scalar(value: Any) -> str:
    if value is None:
        return _(NOTHING)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return value_text(value)


# -- times -------------------------------------------------------------------------------------

def now_ms() -> int:
    return int(time.time() * 1000)


def clock(ms: int, now: int | None = None) -> str:
    """14:32 today, "3 Mar 14:32" on another day (local time: this is a desktop app)."""
    at = time.localtime(ms / 1000)
    today = time.localtime((now if now is not None else now_ms()) / 1000)
    if (at.tm_year, at.tm_yday) == (today.tm_year, today.tm_yday):
        return time.strftime("%H:%M", at)
    if current_language() != ENGLISH:  # the language's own short date and time
        return format_datetime(ms / 1000)
    return f"{at.tm_mday} {time.strftime('%b %H:%M', at)}"


def age(ms: int, now: int | None = None) -> str:
    seconds = max(0, ((now if now is not None else now_ms()) - ms) // 1000)
    if seconds < 45:
        return _("just now")
    if seconds < 3600:
        return _("{n} min ago").format(n=max(1, round(seconds / 60)))
    if seconds < 86400:
        return _("{n} h ago").format(n=seconds // 3600)
    days = seconds // 86400
    return ngettext("{n} day ago", "{n} days ago", days).format(n=days)


def time_left(expires_at: int, now: int | None = None) -> str:
    """ "4:12 left", "1:02:03 left"; "Expired" when the time is up."""
    left = (expires_at - (now if now is not None else now_ms())) // 1000
    if left <= 0:
        return _("Expired")
    hours, rest = divmod(left, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return _("{time} left").format(time=f"{hours}:{minutes:02d}:{seconds:02d}")
    return _("{time} left").format(time=f"{minutes}:{seconds:02d}")


def urgent(expires_at: int, now: int | None = None) -> bool:
    return expires_at - (now if now is not None else now_ms()) < 60_000


def expiry_sentence(request: Request, now: int | None = None) -> str:
    """What happens if nobody answers in time, said as a consequence."""
    if request.expires_at is None:
        return ""
    by = clock(request.expires_at, now)
    if isinstance(request, ShellApprovalRequest):
        what = _("the command won't run") if request.operation != "write" else _("nothing will be written")
    elif isinstance(request, ToolApprovalRequest):
        what = _("{tool} won't run").format(tool=tool_name(request) or _("the tool"))
    elif isinstance(request, QuestionRequest):
        what = _("the question goes unanswered and its step fails")
    else:
        what = _("the form is dismissed and {server} gets nothing").format(server=request.server_name)
    return _("If nobody answers by {time}, {what}.").format(time=by, what=what)


# -- outcomes ----------------------------------------------------------------------------------

def asked_input(request: InteractionRequest) -> dict[str, Any] | None:
    """The tool's input as the request asked for it (what an edit changes); None when not known."""
    if isinstance(request, ShellApprovalRequest):
        return request.tool_input
    if isinstance(request, ToolApprovalRequest) and isinstance(request.validated_input, dict):
        return request.validated_input
    return None


def outcome(record: InteractionRecord) -> Outcome:
    """The chip for an ended request, with what was decided in words."""
    result = record.result
    if record.status == "pending" or result is None:
        return WAITING
    if record.status == "expired":
        return Outcome(N_("Expired"), "timer_off", "grey-7", _("Nobody answered in time — nothing was sent"))
    if isinstance(result, CancelledResult):
        return Outcome(N_("Cancelled"), "block", "grey-7",  # the chip says Cancelled: the line says why, once
                       _("Reason: {reason}").format(reason=cancel_words(result)))
    assert isinstance(result, ResolvedResult)
    response = result.response
    if isinstance(response, ApprovalResponse):
        if response.decision == "denied":
            return Outcome(N_("Denied"), "cancel", "negative",
                           _("Reason: {reason}").format(reason=response.reason) if response.reason else "")
        if record.auto:
            why = (_("by the rule: {rule}").format(rule=rule_text_words(record.rule_text, _)) if record.rule_text
                   else _("this tool is always allowed"))
            return Outcome(N_("Approved"), "bolt", "positive", _("Approved automatically: {why}").format(why=why))
        tool = tool_name(record.request)
        edit = (change_words(asked_input(record.request), response.edited_input)
                if response.edited_input is not None else "")
        if response.scope == "tool" and tool:
            return Outcome(N_("Approved"), "check_circle", "positive",
                           _("; ").join(w for w in (_("and {tool} is now always allowed").format(tool=tool), edit)
                                        if w))
        if response.scope != "once":
            widened = _("and from now on without asking: {scope}").format(
                scope=scope_words(response.scope, record.request, response.prefix, tr=_))
            return Outcome(N_("Approved"), "check_circle", "positive",
                           _("; ").join(w for w in (widened, edit) if w))
        return Outcome(N_("Approved"), "check_circle", "positive", edit)
    if isinstance(response, QuestionResponse) and response.declined:
        return Outcome(N_("Declined"), "do_not_disturb_on", "negative", _("Chose not to answer"))
    if isinstance(response, QuestionResponse) and isinstance(record.request, QuestionRequest):
        return Outcome(N_("Answered"), "chat", "primary", answers_text(record.request, response))
    if isinstance(response, ElicitationResponse):
        if response.action == "accept":
            shown = "; ".join(f"{k} = {_scalar(v)}" for k, v in response.values.items())
            return Outcome(N_("Sent"), "send", "primary", shown)
        if response.action == "decline":
            return Outcome(N_("Not shared"), "do_not_disturb_on", "negative", _("Chose not to share"))
        return Outcome(N_("Dismissed"), "close", "grey-7", _("Dismissed without an answer"))
    return Outcome(N_("Answered"), "chat", "primary")


def answers_text(request: QuestionRequest, response: QuestionResponse) -> str:
    """ "Environment: Production; Notes: hello", using the options' labels where there are some."""
    by_id = {q.question_id: q for q in request.questions}
    given = {a.question_id for a in response.answers}
    parts = []
    for answer in response.answers:
        question = by_id.get(answer.question_id)
        labels = {o.value: o.label for o in (question.options or [])} if question else {}
        values = answer.value if isinstance(answer.value, list) else [answer.value]
        shown = ", ".join(labels.get(v, v) for v in values) or _("(nothing chosen)")
        prompt = question.prompt if question else answer.question_id
        parts.append(f"{prompt} {shown}" if prompt.endswith(("?", ":")) else f"{prompt}: {shown}")
    parts.extend(_("{question} (skipped)").format(question=q.prompt) for q in request.questions
                 if q.question_id not in given)
    return "; ".join(parts)


def not_done(request: InteractionRequest) -> str:
    """What did not happen because nobody answered in time."""
    if isinstance(request, ShellApprovalRequest):
        return _("nobody answered, so the command did not run")
    if isinstance(request, ToolApprovalRequest):
        return _("nobody answered, so the tool did not run")
    return _("nobody answered, so the step went on without an answer")


def ended_headline(record: InteractionRecord, now: int | None = None) -> str:
    """The banner on a request that can no longer be answered."""
    at = clock(record.resolved_at, now) if record.resolved_at else ""
    if record.status == "expired":
        return (_("Expired at {time} — nothing was sent: {what}") if at else
                _("Expired — nothing was sent: {what}")).format(time=at, what=not_done(record.request))
    if record.status == "cancelled":
        why = cancel_words(record.result) if isinstance(record.result, CancelledResult) \
            else _("it was cancelled")
        return (_("Cancelled at {time}: {why}") if at else _("Cancelled: {why}")).format(time=at, why=why)
    result = outcome(record)
    head = (_("Already answered at {time}: {word}") if at else _("Already answered: {word}")).format(
        time=at, word=result.word)
    return head + (f" — {result.details}" if result.details else "")


def cancel_words(result: CancelledResult) -> str:
    """Why a request was cancelled, in the person's language: its cause (`gui.core.causes`), else
    what its reason alone says (a request cancelled before causes were kept)."""
    cause = cancel_cause(result)
    if cause is not None:
        return _(CAUSES[cause].why)
    words = CANCEL_WORDS.get(result.reason)
    return _(words) if words else result.reason


def answered_words(record: InteractionRecord, response: InteractionResponse) -> str:
    """The short note after answering: what will happen now."""
    request = record.request
    if isinstance(response, ApprovalResponse):
        what = _("the command") if kind(request) == "shell" else tool_name(request) or _("the tool")
        if response.decision == "approved" and response.edited_input is not None:
            return (_("Approved: your edited command will run.") if kind(request) == "shell"
                    else _("Approved: {what} will run with your changes.").format(what=what))
        if response.decision == "approved":
            return _("Approved: {what} will run.").format(what=what)
        return (_("Denied: {what} won't run — your note was passed on.") if response.reason
                else _("Denied: {what} won't run.")).format(what=what)
    if isinstance(response, QuestionResponse):
        return _("Declined: the step was told you chose not to answer.") if response.declined else _("Answer sent.")
    if isinstance(response, ElicitationResponse):
        server = getattr(request, "server_name", None)
        server = _("the server") if server is None else server
        words = {"accept": _("Sent to {server}."), "decline": _("Told {server} you don't want to share."),
                 "cancel": _("Dismissed.")}
        return words[response.action].format(server=server)
    return _("Done.")
