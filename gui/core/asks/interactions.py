"""A run's requests for a person (seed `session_interaction.ts`), their answers and their results.

Kinds: `approval` (shell-style: command, folder, reason, operation; or a tool approval with the
validated input), `question` (text / single_select / multi_select, each required or optional, the
whole request answerable or declinable), and `elicitation` (a tool server's form). Lifecycle:
pending → resolved | expired | cancelled. The service that enforces the rules lives in
`gui.core.asks.service`; this module holds the shapes, what a store indexes a record by
(`interaction_fields`, as `run_fields` is beside the run record), and what ended a cancelled one
(`cancel_cause`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from gui.core.asks.signoffs import Handover, Signoff
from gui.core.causes import REASON_CAUSES, CancelReason, EndCause
from gui.core.marks import N_, Sentence, Translate, as_written
from gui.core.sequences import Asking

JsonValue = Any

InteractionKind = Literal["approval", "question", "elicitation"]
InteractionStatus = Literal["pending", "resolved", "expired", "cancelled"]
# what a query may ask for: one status, or "ended" (any but pending: the inbox's History)
InteractionStatusFilter = Literal["pending", "resolved", "expired", "cancelled", "ended"]
ENDED_STATUSES: frozenset[str] = frozenset({"resolved", "expired", "cancelled"})
ApprovalMode = Literal["ask", "always-allow"]

# What each cancel reason means, in words a person reads (the inbox, a tool's error, the CLI).
CANCEL_WORDS: dict[CancelReason, str] = {
    "turn_stopped": N_("the run was stopped"),
    "session_disposed": N_("the app was closed"),
    "runtime_interrupted": N_("the app stopped before anyone answered"),
    "no_one_to_ask": N_("there was no one to ask"),
}


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _unset(value: object) -> bool:
    """A field left out of a dump while None (`Field(exclude_if=...)`)."""
    return value is None


def _unused(value: object) -> bool:
    """A field left out of a dump while empty or 0."""
    return not value


class _Answer(_Model):
    """A person's answer: strict, so `"always_allow": "yes"` is refused rather than read as true
    (no coercion ever decides what a person agreed to)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class ToolSource(_Model):
    type: Literal["tool"] = "tool"
    tool_call_id: str
    tool_name: str


class ExecutionSource(_Model):
    type: Literal["execution"] = "execution"


class ProgramSource(_Model):
    """A program on this computer asked (`POST /api/asks`, `seqdesk ask`): not a tool the person set up.
    `asker` is the name it gave itself, unchecked: shown as its claim, and what its rules are kept by."""

    type: Literal["program"] = "program"
    asker: str = ""


Source = Annotated[ToolSource | ExecutionSource | ProgramSource, Field(discriminator="type")]


class _RequestBase(_Model):
    interaction_id: str
    turn_id: str  # the run id
    source: Source
    created_at: int  # milliseconds since the epoch
    expires_at: int | None = None
    # Where it comes from, for people: not in the seed, shown in the inbox.
    sequence_name: str = ""
    group_name: str = ""
    # The step that asks (`gui.core.sequences.fingerprint`) and its saved sequence (`Sequence.identity`): what a
    # rule made from this request covers (`gui.core.asks.rules`). None when no step of a saved sequence asks.
    step_fingerprint: str | None = None
    sequence_identity: str | None = None
    # Who may answer and how many must agree (`gui.core.sequences.asking`); None: anyone, one answer.
    # `asking`, `started_by` and `host` appear only when set: a request without them reads as it always did
    # (left out by pydantic itself, `exclude_if`: a wrapping serializer made every dump three times as long).
    asking: Asking | None = Field(default=None, exclude_if=_unset)
    # the person who started the run (a team server knows; None on the desktop)
    started_by: str | None = Field(default=None, exclude_if=_unset)
    # the host the asking step runs on (`ToolCall.on`); None: where the run runs
    host: str | None = Field(default=None, exclude_if=_unset)


class ShellApprovalRequest(_RequestBase):
    kind: Literal["approval"] = "approval"
    title: str
    description: str | None = None
    command: str
    cwd: str
    reason: str
    operation: Literal["exec", "start", "write"]
    bound_inputs: dict[str, JsonValue] = Field(default_factory=dict)  # the inputs its arguments used
    # Inputs a program will run as a command (`sh -c "$args.x"`, `eval`), each with that program ("":
    # the input is the command or names its program): the approval says so beside the input.
    run_as_code: dict[str, str] = Field(default_factory=dict)
    tool_input: dict[str, JsonValue] | None = None  # the tool's validated arguments (what an edit changes)


class ToolApprovalRequest(_RequestBase):
    kind: Literal["approval"] = "approval"
    operation: Literal["tool"] = "tool"
    validated_input: JsonValue
    bound_inputs: dict[str, JsonValue] = Field(default_factory=dict)  # the inputs its arguments used
    # The tool's own titles for the arguments it is given, where its schema has one ("timeout": "Time limit
    # (seconds)"): the words its form in the editor shows, unit and all, not a word list's guess.
    input_titles: dict[str, str] = Field(default_factory=dict)
    tool_description: str | None = None
    server_address: str | None = None  # an MCP server's tool: where the server is (`McpServerConfig.address`)
    model_explanation: str | None = None  # the caller's words: never a basis for safety
    # What it will do in one sentence ("Read the file /x"), and the part to check, shown in bold.
    summary: str | None = None
    summary_highlight: str | None = None
    # `summary` as its marked template and parameters (data), so the inbox words it in the person's language.
    summary_template: str | None = None
    summary_params: dict[str, str] = Field(default_factory=dict)

    def summary_words(self, tr: Translate = as_written) -> str | None:
        """`summary` in the words of `tr`; as written when it has no template (or it was made elsewhere)."""
        if self.summary_template is None or tr(self.summary_template) == self.summary_template:
            return self.summary  # English, or a sentence the catalogue does not know: as it was written
        words = Sentence(self.summary_template, tuple(self.summary_params.items()))
        return words.render(tr) if words.render() == self.summary else self.summary


class QuestionOption(_Model):
    """One choice. Written as a plain label (`"alpha"`) or `{"label": "alpha"}`, its value is the label."""

    value: str = Field(min_length=1)
    label: str = Field(min_length=1)
    description: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _value_is_the_label_unless_set(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"value": data, "label": data}
        if isinstance(data, dict) and data.get("value") is None and isinstance(data.get("label"), str):
            return {**data, "value": data["label"]}
        return data


class Question(_Model):
    question_id: str = Field(min_length=1)
    prompt: str
    response_type: Literal["text", "single_select", "multi_select"]
    options: list[QuestionOption] | None = None
    required: bool = True  # False: the person may skip it (its answer is then absent)
    # What it takes when nobody answers before the request expires (a choice's value, or several).
    default: str | list[str] | None = None

    @model_serializer(mode="wrap")
    def _default_when_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("default") is None:
            data.pop("default", None)
        return data

    @model_validator(mode="after")
    def _choices_fit_the_kind(self) -> Question:
        if self.response_type == "text":
            if self.options:
                raise ValueError("a text question takes no choices (options): use single_select or multi_select")
            if isinstance(self.default, list):
                raise ValueError("a text question's default is a text, not a list")
            return self
        if not self.options:
            raise ValueError(f"a {self.response_type} question needs at least one choice in options")
        values = [o.value for o in self.options]
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise ValueError(f"two choices have the same value: {', '.join(twice)}")
        defaults = [self.default] if isinstance(self.default, str) else self.default or []
        if self.response_type == "single_select" and isinstance(self.default, list):
            raise ValueError("a single_select question's default is one choice, not a list")
        unknown = [d for d in defaults if d not in values]
        if unknown:
            raise ValueError(f"the default {', '.join(map(repr, unknown))} is not one of the choices")
        return self


class QuestionRequest(_RequestBase):
    kind: Literal["question"] = "question"
    title: str
    questions: list[Question] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_question_ids(self) -> QuestionRequest:
        ids = [q.question_id for q in self.questions]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"two questions have the id: {', '.join(twice)}")
        return self


class ElicitationField(_Model):
    """One field of a tool server's form: a text, a number, on/off, or one (or several) of `enum`."""

    name: str
    type: Literal["string", "number", "boolean"]
    title: str = ""
    description: str = ""
    required: bool = False
    default: JsonValue = None
    enum: list[str] | None = None
    # Every constraint of the form, checked when the person answers (a server would refuse the rest):
    integer: bool = False  # a number without a fraction
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None  # email, uri, date, date-time
    multiple: bool = False  # several of `enum` at once (a list); `min_items`/`max_items` bound how many
    min_items: int | None = None
    max_items: int | None = None


def _new_id() -> str:
    return uuid.uuid4().hex


def _now_ms() -> int:
    return int(time.time() * 1000)


class ElicitationRequest(_RequestBase):
    """A tool server's form (MCP `elicitation/create`), or a page it asks the person to open (`url`).

    One model from the server to the person: the MCP client makes it from the server's schema, an
    elicitation handler receives it, the inbox stores it as it is and draws it. Made where the server
    asks, it has an id and a time of its own; `expires_at` is the latest the calling tool can wait.
    """

    kind: Literal["elicitation"] = "elicitation"
    interaction_id: str = Field(default_factory=_new_id)
    turn_id: str = ""
    source: Source = ExecutionSource()
    created_at: int = Field(default_factory=_now_ms)
    server_name: str
    message: str  # Markdown
    fields: list[ElicitationField] = Field(default_factory=list)
    url: str | None = None  # URL-mode requests: the person opens it, then accepts/declines


# An approval is a command's (shell-style) or a tool's, told apart by its `operation`; every request by
# its `kind`. Both are fields: pydantic picks the model without calling back into Python.
ApprovalRequest = Annotated[ShellApprovalRequest | ToolApprovalRequest, Field(discriminator="operation")]
InteractionRequest = Annotated[
    ApprovalRequest | QuestionRequest | ElicitationRequest, Field(discriminator="kind")
]


class ApprovalResponse(_Answer):
    kind: Literal["approval"] = "approval"
    decision: Literal["approved", "denied"]
    reason: str | None = None  # a denial's reason, passed to the tool
    always_allow: bool = False  # "approve and always allow this tool": the same as scope "tool"
    # How far the approval reaches (`gui.core.asks.rules`): once, run, sequence, prefix (with `prefix`), tool,
    # or program (a program's request: the same program asking the same again).
    scope: Literal["once", "run", "sequence", "prefix", "tool", "program"] = "once"
    prefix: str | None = None
    # The tool's arguments as the person changed them (checked against its schema); it runs with these.
    edited_input: dict[str, JsonValue] | None = None

    @model_validator(mode="before")
    @classmethod
    def _always_allow_is_scope_tool(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("always_allow") is True:
            scope = data.get("scope", "tool")
            if scope not in ("tool", "once"):
                raise ValueError(f"always_allow is scope 'tool': it cannot go with scope '{scope}'")
            return {**data, "scope": "tool"}
        return data

    @model_serializer(mode="wrap")
    def _only_given_scope(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """`scope` and `prefix` appear only when used: an answer for one request reads as it always did."""
        data: dict[str, Any] = handler(self)
        if data.get("scope") == "once":
            data.pop("scope")
        if data.get("prefix") is None:
            data.pop("prefix", None)
        if data.get("edited_input") is None:
            data.pop("edited_input", None)
        return data

    @property
    def widens(self) -> bool:
        """It makes a rule: approved, with a scope beyond this one request."""
        return self.decision == "approved" and self.scope != "once"


class Answer(_Answer):
    question_id: str
    value: str | list[str]


class QuestionResponse(_Answer):
    """The answers; or `decision: "declined"` (with no answers): the person refuses the whole request."""

    kind: Literal["question"] = "question"
    decision: Literal["answered", "declined"] = "answered"
    answers: list[Answer] = Field(default_factory=list)

    @property
    def declined(self) -> bool:
        return self.decision == "declined"


class ElicitationResponse(_Answer):
    """The person's reply to a form, as the server receives it: only `accept` carries values; `decline`
    says the person refuses, `cancel` that nobody could answer (the server may go on with defaults)."""

    kind: Literal["elicitation"] = "elicitation"
    action: Literal["accept", "decline", "cancel"]
    values: dict[str, JsonValue] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _values_only_on_accept(self) -> ElicitationResponse:
        if self.action != "accept" and self.values:
            article = "a decline" if self.action == "decline" else "a cancel"
            raise PydanticCustomError("values_only_on_accept", "{article} carries no values, got: {names}",
                                      {"article": article, "names": ", ".join(self.values)})
        return self

    @classmethod
    def accept(cls, values: Mapping[str, JsonValue] | None = None) -> ElicitationResponse:
        return cls(action="accept", values=dict(values or {}))

    @classmethod
    def decline(cls) -> ElicitationResponse:
        return cls(action="decline")

    @classmethod
    def cancel(cls) -> ElicitationResponse:
        return cls(action="cancel")


InteractionResponse = Annotated[
    ApprovalResponse | QuestionResponse | ElicitationResponse, Field(discriminator="kind")
]


class ResolvedResult(_Model):
    status: Literal["resolved"] = "resolved"
    interaction_id: str
    response: InteractionResponse


class ExpiredResult(_Model):
    status: Literal["expired"] = "expired"
    interaction_id: str


class CancelledResult(_Model):
    status: Literal["cancelled"] = "cancelled"
    interaction_id: str
    reason: CancelReason
    # What ended it (`gui.core.causes`): who stopped the run, the app closing... None: only `reason` is known.
    # (left out when None: a result kept before causes were reads as it always did)
    cause: EndCause | None = Field(default=None, exclude_if=_unset)


def cancel_cause(result: CancelledResult) -> EndCause | None:
    """What ended a cancelled request: its cause, or what its reason alone tells (a result kept before causes)."""
    return result.cause or REASON_CAUSES.get(result.reason)


InteractionResult = Annotated[
    ResolvedResult | ExpiredResult | CancelledResult, Field(discriminator="status")
]


class InteractionRecord(_Model):
    """What is stored: the request, its status, and once it ends its result and when."""

    request: InteractionRequest
    status: InteractionStatus = "pending"
    result: InteractionResult | None = None
    resolved_at: int | None = None  # ms; when it left `pending`
    auto: bool = False  # an auto-approval recorded because a rule allowed it
    rule_id: str | None = None  # which rule (`gui.core.asks.rules`)
    rule_text: str | None = None  # that rule in words, as it read when it allowed this
    # While several must approve: each approval given so far, in order (`gui.core.asks.approvers`).
    # The fields of several people appear only once used (`exclude_if`): other records read as they always did.
    approvals: tuple[Signoff, ...] = Field(default=(), exclude_if=_unused)
    handovers: tuple[Handover, ...] = Field(default=(), exclude_if=_unused)  # each time a person handed it on
    reminded_at: int | None = Field(default=None, exclude_if=_unset)  # ms; approvers reminded (`remind_after`)
    escalated_at: int | None = Field(default=None, exclude_if=_unset)  # ms; `escalate_to` asked too
    # one more at each change while pending: a store keeps a change only over the one before
    revision: int = Field(default=0, exclude_if=_unused)

    @property
    def interaction_id(self) -> str:
        return self.request.interaction_id


def tool_name_of(request: InteractionRequest) -> str | None:
    """The tool that asked, when a tool asked (an approval's "always allow" is for that tool)."""
    source = request.source
    return source.tool_name if isinstance(source, ToolSource) else None


def interaction_fields(record: InteractionRecord) -> dict[str, Any]:
    """What interaction queries filter and sort on (the TinyDB store indexes exactly these)."""
    request = record.request
    return {"status": record.status, "kind": request.kind, "run_id": request.turn_id,
            "sequence": request.sequence_name, "tool_name": tool_name_of(request),
            "created_at": request.created_at}
