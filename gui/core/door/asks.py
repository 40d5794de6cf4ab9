"""Any program on this computer asking the person (`POST /api/asks`, `seqdesk ask`): an approval (a
title, and a command or a text) or a question (with choices or not), kept in the inbox like a tool's
request and answered there, its answer given back to the program.

Who else can send one, and what it makes a person see. Any program that reaches the app on this
computer (with the app's token, when it has one) can; a web page cannot (the request gate refuses a
foreign Origin and a body that is not JSON), and a paired phone cannot (the API refuses it). So:

- it is named as a program, never as a tool or a sequence the person set up: the inbox says "A
  program asks: …", and the name it gives itself is shown as its claim, never trusted;
- everything it sends is text, bounded (`MAX_*`), one line where a line is expected, with no control
  or direction-changing characters (which could make what is shown differ from what is asked); the
  inbox draws it as text, never as markup;
- it cannot flood the person: at most `MAX_WAITING` of its requests wait at once, `MAX_PER_MINUTE`
  a minute (`TooManyAsks`), and each expires (`timeout`, at most a day);
- an approval is covered by a rule only when the person made one for it: the same program (by its
  name) asking the same command (or text) again (`gui.core.asks.rules`, scope `program`); no tool's
  "always allow" covers it.

`ProgramAsks` is what the engine holds; the door's `ask`, `ask_state` and `withdraw_ask` pass to it,
so the HTTP API, the CLI (through the app) and MCP call the same function.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
import uuid
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from gui.core.asks import (
    ApprovalResponse,
    CancelledResult,
    InteractionRecord,
    InteractionService,
    ProgramSource,
    Question,
    QuestionOption,
    QuestionRequest,
    QuestionResponse,
    ResolvedResult,
    ShellApprovalRequest,
    cancel_cause,
)
from gui.core.causes import CAUSES
from gui.core.errors import Conflict, Invalid, NotFound

MAX_TITLE = 200
MAX_COMMAND = 8_000
MAX_TEXT = 4_000
MAX_CWD = 1_000
MAX_ASKER = 40
MAX_CHOICES = 20
MAX_CHOICE = 200
MAX_WAITING = 20  # a program's requests waiting at once
MAX_PER_MINUTE = 60
DEFAULT_TIMEOUT = 600.0  # s: a program that forgets its request leaves no request behind for long
MAX_TIMEOUT = 86_400.0
ASK_WAIT = 55.0  # s one call waits for the answer (`ask_state`): under the usual HTTP timeouts

ANSWER_ID = "answer"  # the one question's id in the inbox
_ASKER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]*$")
# Control characters, and those that change the direction text is drawn in (a command that reads
# differently from what runs), or hide text: refused anywhere in what a program sends.
_HIDDEN = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069"
                     "\ufeff\ufff9-\ufffb]")
_LINE_BREAK = re.compile("[\n\t\u2028\u2029]")

AskKind = Literal["approval", "question"]
AskStatus = Literal["pending", "approved", "denied", "answered", "declined", "expired", "cancelled"]


class AskInvalid(Invalid):
    """What a program sent cannot be shown to the person as it is: the message says which field."""

    code = "invalid-ask"


class TooManyAsks(Conflict):
    """A program's requests already wait, or came too fast: it asks again once some are answered."""

    code = "too-many-asks"


def _plain(text: str, field: str, *, lines: bool) -> str:
    found = _HIDDEN.search(text)
    if found is not None:
        raise ValueError(f"{field} holds a control or invisible character (U+{ord(found.group()):04X}); "
                         "send plain text")
    if not lines and _LINE_BREAK.search(text):
        raise ValueError(f"{field} must be one line")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{field} is not valid Unicode text (a lone surrogate)") from None
    return text


class ProgramAsk(BaseModel):
    """What a program asks: checked whole before anything is stored (each problem names its field)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    kind: AskKind
    title: str = Field("", max_length=MAX_TITLE)
    command: str | None = Field(None, max_length=MAX_COMMAND)  # an approval: what will run
    text: str | None = Field(None, max_length=MAX_TEXT)  # an approval's words, or the question
    cwd: str | None = Field(None, max_length=MAX_CWD)  # where the command will run, when the program says
    choices: list[str] = Field(default_factory=list, max_length=MAX_CHOICES)
    multiple: bool = False  # a question whose answer is several of its choices
    asker: str = Field("", max_length=MAX_ASKER)  # the name the program gives itself (shown as its claim)
    timeout: float = Field(DEFAULT_TIMEOUT, gt=0, le=MAX_TIMEOUT)  # s until it expires unanswered

    @field_validator("title", "cwd")
    @classmethod
    def _one_line(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else _plain(value.strip(), str(info.field_name), lines=False)

    @field_validator("command", "text")
    @classmethod
    def _text(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        return _plain(value, str(info.field_name), lines=True) if value.strip() else None

    @field_validator("choices")
    @classmethod
    def _choices(cls, value: list[str]) -> list[str]:
        for index, choice in enumerate(value):
            where = f"choices[{index}]"
            if not choice.strip() or len(choice) > MAX_CHOICE:
                raise ValueError(f"{where} must be 1 to {MAX_CHOICE} characters")
            _plain(choice, where, lines=False)
        twice = sorted({c for c in value if value.count(c) > 1})
        if twice:
            raise ValueError(f"two choices are the same: {', '.join(twice)}")
        return value

    @field_validator("asker")
    @classmethod
    def _asker(cls, value: str) -> str:
        value = value.strip()
        if value and not _ASKER.match(value):
            raise ValueError("asker is a name of letters, digits, spaces, '.', '_' and '-' (like claude-code)")
        return value

    @model_validator(mode="after")
    def _fits_its_kind(self) -> ProgramAsk:
        if self.kind == "approval":
            if self.command is None and self.text is None:
                raise ValueError("an approval needs the command (or the text) the person approves")
            if self.choices or self.multiple:
                raise ValueError("an approval takes no choices: ask a question for that")
        else:
            if self.text is None:
                raise ValueError("a question needs its text")
            if self.command is not None or self.cwd is not None:
                raise ValueError("a question takes no command or cwd: ask an approval for that")
            if self.multiple and not self.choices:
                raise ValueError("multiple goes with choices")
        return self

    def request(self, now_ms: int) -> ShellApprovalRequest | QuestionRequest:
        """The inbox request it becomes."""
        common: dict[str, Any] = {"interaction_id": uuid.uuid4().hex, "turn_id": "",
                                  "source": ProgramSource(asker=self.asker), "created_at": now_ms,
                                  "expires_at": now_ms + int(self.timeout * 1000)}
        if self.kind == "approval":
            return ShellApprovalRequest(**common, title=self.title, description=self.text, command=self.command or "",
                                        cwd=self.cwd or "", reason="", operation="exec")
        kind = ("multi_select" if self.multiple else "single_select") if self.choices else "text"
        question = Question(question_id=ANSWER_ID, prompt=self.text or "", response_type=kind,
                            options=[QuestionOption(value=c, label=c) for c in self.choices] or None)
        return QuestionRequest(**common, title=self.title, questions=[question])


class AskState(BaseModel):
    """Where a program's request is: waiting, or how it ended and what the person answered."""

    model_config = ConfigDict(frozen=True)

    ask_id: str
    kind: AskKind
    status: AskStatus
    answer: str | list[str] | None = None  # a question's answer
    reason: str | None = None  # a denial's note, or why it was cancelled
    auto: bool = False  # approved by a rule the person made, without asking
    rule: str | None = None  # that rule, in words
    expires_at: int | None = None  # ms since the epoch

    @property
    def ended(self) -> bool:
        return self.status != "pending"


def state_of(record: InteractionRecord) -> AskState:
    request = record.request
    kind: AskKind = "question" if isinstance(request, QuestionRequest) else "approval"
    base: dict[str, Any] = {"ask_id": record.interaction_id, "kind": kind, "auto": record.auto,
                            "rule": record.rule_text, "expires_at": request.expires_at}
    result = record.result
    if record.status == "pending" or result is None:
        return AskState(**base, status="pending")
    if isinstance(result, ResolvedResult):
        response = result.response
        if isinstance(response, ApprovalResponse):
            return AskState(**base, status=response.decision, reason=response.reason)
        if isinstance(response, QuestionResponse):
            if response.declined:
                return AskState(**base, status="declined")
            value = next((a.value for a in response.answers if a.question_id == ANSWER_ID), None)
            return AskState(**base, status="answered", answer=value)
    if isinstance(result, CancelledResult):
        cause = cancel_cause(result)
        return AskState(**base, status="cancelled", reason=CAUSES[cause].why if cause else result.reason)
    return AskState(**base, status="expired")


class ProgramAsks:
    """The programs' requests of one engine: asked through its interaction service, bounded, awaited."""

    def __init__(self, interactions: InteractionService, clock: Callable[[], float] = time.monotonic) -> None:
        self.interactions = interactions
        self.clock = clock
        self._waiting: dict[str, asyncio.Future[Any]] = {}  # request id -> done when it ends
        self._recent: deque[float] = deque()

    async def ask(self, ask: ProgramAsk) -> AskState:
        """Put the request in the inbox (or allow it at once by the person's rule); TooManyAsks when
        too many wait or came within the last minute."""
        self._check_room()
        request = ask.request(self.interactions.now_ms())
        if isinstance(request, ShellApprovalRequest):
            approval = await self.interactions.ask_approval(request, "")  # a program's request names no tool
            if approval.waiting:
                self._keep(request.interaction_id, approval.outcome())
        else:
            self._keep(request.interaction_id, (await self.interactions.request(request)).result())
        return await self.state(request.interaction_id)

    async def state(self, ask_id: str, wait: float = 0.0) -> AskState:
        """Where the request is, after waiting up to `wait` seconds (at most ASK_WAIT) for its end."""
        ended = self._waiting.get(ask_id)
        if ended is not None and wait > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(wait, ASK_WAIT)):
                    await asyncio.shield(ended)  # giving up here leaves the request as it is
        return state_of(await self._record(ask_id))

    async def withdraw(self, ask_id: str) -> AskState:
        """The program stopped waiting: its request is cancelled (if it still waits), as an agent giving up."""
        await self._record(ask_id)
        await self.interactions.cancel(ask_id, "turn_stopped", "agent_gave_up")
        self._waiting.pop(ask_id, None)  # it no longer counts as waiting, even before its end is awaited
        return await self.state(ask_id)

    async def _record(self, ask_id: str) -> InteractionRecord:
        record = await self.interactions.get(ask_id)
        if record is None or not isinstance(record.request.source, ProgramSource):
            raise NotFound(f"there is no request from a program with the id {ask_id!r}")
        return record

    def _keep(self, ask_id: str, end: Coroutine[Any, Any, Any]) -> None:
        ended = self._waiting[ask_id] = asyncio.ensure_future(end)
        ended.add_done_callback(lambda _: self._waiting.pop(ask_id, None))

    def _check_room(self) -> None:
        now = self.clock()
        while self._recent and self._recent[0] <= now - 60:
            self._recent.popleft()
        if len(self._waiting) >= MAX_WAITING:
            raise TooManyAsks(f"{MAX_WAITING} requests from programs are already waiting for the person: "
                              "ask again once some are answered")
        if len(self._recent) >= MAX_PER_MINUTE:
            raise TooManyAsks(f"programs asked {MAX_PER_MINUTE} times within a minute: wait a moment")
        self._recent.append(now)
