"""The record of decisions nobody can rewrite: who or what decided each request, when, and the exact
text they were shown, as an append-only chain of entries (issue 26, item 5).

Every end of a request is a decision: a person answered (`by="person"`, with the surface they used:
the app, the CLI, the HTTP API with the app's token), a rule allowed it (`by="rule"`, its id and words),
nobody answered in time (`by="timeout"`), or something stopped it (`by="stop"`, with its cause: the
app closing, the run stopped, the agent leaving). The write that stores a request's end drafts its
entry (`AuditDraft`, made by `decision_of` beside `Waiting.save`, which hands
it to the store with the record); a log (`AuditLog`) chains it: each entry carries its position, the
SHA-256 of the entry before it (`prev`) and its own (`hash`), both over the canonical JSON form
(`canonical`: sorted keys, no spaces, UTF-8; rendered by pydantic's JSON writer when the entry holds
only text, whole numbers and nulls, as every entry a log writes does: byte for byte what the standard
library writes, which renders anything else). `verify` (`gui.core.asks.audit_reading`) reads what
is stored, as stored, and names the first entry that does not fit: edited by hand (its hash no longer
matches), removed or moved (the next one's `prev` or position does not match). The chain alone
cannot show the newest entries cut off the end (nothing after them points at them): a log that keeps
its head (`AuditHead`: the last position and hash) apart from the entries lets `verify` see that too
(a team's database does; a data folder's file does not).

Pure: the standard library and pydantic; the stores (`gui.store.audit`, `gui.memory.asks`) keep it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import pydantic_core
from pydantic import BaseModel, ConfigDict

from gui.core.asks.interactions import (
    ApprovalResponse,
    CancelledResult,
    ElicitationRequest,
    ElicitationResponse,
    ExpiredResult,
    InteractionRecord,
    InteractionRequest,
    QuestionRequest,
    QuestionResponse,
    ResolvedResult,
    ShellApprovalRequest,
    ToolApprovalRequest,
    cancel_cause,
    tool_name_of,
)

GENESIS = "0" * 64  # the `prev` of the first entry
Via = Literal["app", "cli", "api", "mcp", "phone"]
VIAS: tuple[Via, ...] = ("app", "cli", "api", "mcp", "phone")
DecidedBy = Literal["person", "rule", "timeout", "stop"]


class Answerer(BaseModel):
    """Who answered, as the surface that took the answer knows it: on the desktop always "you", and
    the way in (`via`); a team server adds the person's name and the token they used."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    person: str = "you"
    via: Via
    token: str | None = None  # which token (its label, never the secret), when one was used


class AuditDraft(BaseModel):
    """A decision before a log gives it its place in the chain."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: int  # ms since the epoch: when it was decided
    interaction_id: str
    run_id: str
    sequence_name: str = ""
    kind: str  # approval, question, elicitation
    decision: str  # approved, denied, answered, declined, accepted, expired, cancelled
    by: DecidedBy
    person: str | None = None
    via: Via | None = None
    token: str | None = None
    rule_id: str | None = None
    rule_text: str | None = None
    cause: str | None = None  # what stopped it (`gui.core.causes`), or the cancel reason
    shown: str  # the exact text the decider was shown (the command, the question)
    detail: str | None = None  # what came with the decision: a deny's reason, a scope, the answers


class AuditEntry(AuditDraft):
    """A decision in the chain: its position (from 1), id, and the hashes that tie it to the others."""

    position: int
    entry_id: str
    prev: str
    hash: str


# The fields of an entry in the order they are hashed (sorted, `hash` left out): what `chained_lines` sorts
# a draft's document into, once for all.
_HASHED_ORDER = tuple(sorted(name for name in AuditEntry.model_fields if name != "hash"))


@dataclass(frozen=True)
class AuditHead:
    """The chain's last entry as kept apart from the entries (its position, 0 for none, and hash)."""

    position: int
    hash: str


class AuditLog(Protocol):
    """Where decisions are kept, append-only. `append` chains the draft after the last entry and is
    durable when it returns (a tool never goes on before its decision is on disk); `documents` gives
    every entry exactly as stored, oldest first (`None`: a line that is not a JSON object), for `verify`
    and for reading (`entries`)."""

    async def append(self, draft: AuditDraft) -> AuditEntry: ...

    async def append_many(self, drafts: list[AuditDraft]) -> None:
        """`append` of each, in order, durable together when it returns (closing with thousands waiting)."""
        ...

    async def documents(self) -> list[dict[str, Any] | None]: ...

    async def head(self) -> AuditHead | None:
        """The chain's head as kept apart from the entries, for `verify`; None when nothing keeps it."""
        ...


def _flat(document: Mapping[str, Any]) -> bool:
    """Whether every value is text, a whole number or null (exact types): what pydantic's JSON writer
    renders byte for byte as `json.dumps(..., ensure_ascii=False)` does (tests/core/test_audit_chain.py
    checks every character); anything else (a list, a fraction, edited in by hand) is left to `json`."""
    for value in document.values():  # (a loop: a generator's steps cost more than the checks)
        kind = type(value)
        if kind is not str and kind is not int and value is not None:
            return False
    return True


def _json(document: Mapping[str, Any], flat: bool = False) -> bytes:
    """Compact JSON in UTF-8, keys in the order given (`flat`: known to be `_flat`, not looked at again)."""
    if flat or _flat(document):
        try:
            return pydantic_core.to_json(document)
        except ValueError:  # a lone surrogate (edited in by hand): refused below too, in the words of `json`
            pass
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def canonical(document: Mapping[str, Any]) -> bytes:
    """The one byte form an entry is hashed in: sorted keys, no spaces, UTF-8, `hash` left out."""
    return _json({key: document[key] for key in sorted(document) if key != "hash"})


def digest(document: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical(document)).hexdigest()


def chained(draft: AuditDraft, last: Mapping[str, Any] | None) -> dict[str, Any]:
    """`draft` as the stored document of the entry after `last` (None: the first): every field of an
    `AuditEntry`, `None`s included, in its order (`entry_document`)."""
    return chained_lines([draft], last)[0][0]


def chained_lines(drafts: list[AuditDraft], last: Mapping[str, Any] | None) -> tuple[list[dict[str, Any]], bytes]:
    """`chained` of each draft after the one before it (the first after `last`), and the entries' lines as
    stored (`entry_text` of each, a newline after it, in UTF-8). A draft of text, whole numbers and nulls
    (every one the app drafts) is its own JSON form: its fields are copied rather than dumped, and its
    flatness is looked at once for its document, its hash and its line; an `AuditDraft`'s fields are
    hashed in an order sorted once. The entries' ids come from one draw of random bytes (closing with
    thousands of requests waiting chains one entry each)."""
    documents: list[dict[str, Any]] = []
    lines: list[bytes] = []
    for draft, new_id in zip(drafts, entry_ids(len(drafts)), strict=True):
        fields = draft.__dict__
        flat = _flat(fields)  # (then so is the document: the fields added below are text and a whole number)
        document = dict(fields) if flat else draft.model_dump(mode="json")
        document["position"] = 1 if last is None else int(last["position"]) + 1
        document["entry_id"] = new_id
        document["prev"] = GENESIS if last is None else str(last["hash"])
        # `digest`, the draft's flatness known (its `hash` not there yet: nothing to leave out); an
        # `AuditDraft` holds every one of its fields, exactly (`extra="forbid"`)
        order = _HASHED_ORDER if type(draft) is AuditDraft else sorted(document)
        document["hash"] = hashlib.sha256(_json({key: document[key] for key in order}, flat)).hexdigest()
        lines.append(_json(document, flat))
        documents.append(document)
        last = document
    lines.append(b"")
    return documents, b"\n".join(lines)


def entry_ids(count: int) -> list[str]:
    """`count` new entry ids: each as `uuid.uuid4().hex` writes one (random, version 4, RFC 4122 variant),
    from one draw of random bytes and without making a `UUID` (a third of the time, for each of thousands
    of entries when the app closes)."""
    raw = bytearray(os.urandom(16 * count))
    ids = []
    for start in range(0, 16 * count, 16):
        raw[start + 6] = raw[start + 6] & 0x0F | 0x40  # the version
        raw[start + 8] = raw[start + 8] & 0x3F | 0x80  # the variant
        ids.append(raw[start:start + 16].hex())
    return ids


def chain(draft: AuditDraft, last: Mapping[str, Any] | None) -> AuditEntry:
    """`draft` as the entry after `last` (None: the first)."""
    return AuditEntry.model_validate(chained(draft, last))


def entry_document(entry: AuditEntry) -> dict[str, Any]:
    """The entry as it is stored (and hashed): every field, `None`s included."""
    return entry.model_dump(mode="json")


def entry_text(document: Mapping[str, Any]) -> str:
    """A stored entry as its line of JSON (compact, UTF-8 text as it is)."""
    return _json(document).decode("utf-8")


# -- drafts: what an entry says, drafted as the change that makes it is stored (`gui.core.asks.waiting`) --

def shown_text(request: InteractionRequest) -> str:
    """The text the person was shown for `request`, as the inbox shows it (English: records keep it so)."""
    if isinstance(request, ShellApprovalRequest):
        lines = [request.title, f"$ {request.command}"]
        if request.host is not None:  # a team's host runs it: the record names it
            lines.append(f"on the host {request.host}")
        lines.append(f"in {request.cwd}" if request.cwd or request.host is None
                     else "in the folder its worker was started in")
        lines += [text for text in (request.description, request.reason) if text]
        return "\n".join(lines)
    if isinstance(request, ToolApprovalRequest):
        lines = [request.summary or f"Run the tool {tool_name_of(request) or ''}".rstrip()]
        lines.append(json.dumps(request.validated_input, sort_keys=True, ensure_ascii=False))
        if request.host is not None:
            lines.append(f"on the host {request.host}")
        if request.tool_description:
            lines.append(request.tool_description)
        return "\n".join(lines)
    if isinstance(request, QuestionRequest):
        lines = [request.title]
        for question in request.questions:
            options = f" [{', '.join(o.label for o in question.options)}]" if question.options else ""
            lines.append(f"{question.prompt}{options}")
        return "\n".join(lines)
    if isinstance(request, ElicitationRequest):
        lines = [f"{request.server_name}: {request.message}"]
        lines += [f"{f.title or f.name}" + (f": {f.description}" if f.description else "") for f in request.fields]
        return "\n".join(lines)
    raise AssertionError(f"unexpected request {request!r}")


def _resolved(response: Any) -> tuple[str, str | None]:
    """What was decided and what came with it, from a person's response."""
    if isinstance(response, ApprovalResponse):
        parts = []
        if response.reason:
            parts.append(f"reason: {response.reason}")
        if response.scope != "once":
            parts.append(f"allowed from now on: {response.scope}" + (f" {response.prefix}" if response.prefix else ""))
        if response.edited_input is not None:
            parts.append("arguments edited: " + json.dumps(response.edited_input, sort_keys=True, ensure_ascii=False))
        return response.decision, "; ".join(parts) or None
    if isinstance(response, QuestionResponse):
        if response.declined:
            return "declined", None
        answers = {a.question_id: a.value for a in response.answers}
        return "answered", json.dumps(answers, sort_keys=True, ensure_ascii=False)
    if isinstance(response, ElicitationResponse):
        values = json.dumps(response.values, sort_keys=True, ensure_ascii=False) if response.values else None
        return {"accept": "accepted", "decline": "declined", "cancel": "cancelled"}[response.action], values
    raise AssertionError(f"unexpected response {response!r}")


def decision_of(record: InteractionRecord, by: Answerer | None = None) -> AuditDraft:
    """The draft entry of an ended request: who or what decided it (`by`: the person who answered)."""
    request, result = record.request, record.result
    base: dict[str, Any] = {"at": record.resolved_at or request.created_at, "interaction_id": request.interaction_id,
                            "run_id": request.turn_id, "sequence_name": request.sequence_name,
                            "kind": request.kind, "shown": shown_text(request)}
    if isinstance(result, ResolvedResult):
        decision, detail = _resolved(result.response)
        if record.auto:
            return AuditDraft(**base, decision=decision, by="rule", rule_id=record.rule_id,
                              rule_text=record.rule_text)
        who = by.model_dump() if by is not None else {"person": None, "via": None}
        return AuditDraft(**base, **who, decision=decision, by="person", detail=detail)
    if isinstance(result, ExpiredResult):
        return AuditDraft(**base, decision="expired", by="timeout")
    if isinstance(result, CancelledResult):
        return _stopped(base, cancel_cause(result) or result.reason)
    raise AssertionError(f"request {request.interaction_id} has not ended")


# Each field of a draft with its default (None for those it must be given), in the draft's order (`_stopped`).
_DRAFT_DEFAULTS = {name: None if field.is_required() else field.default
                   for name, field in AuditDraft.model_fields.items()}
_STOPPED_NAMES = {"at", "interaction_id", "run_id", "sequence_name", "kind", "shown", "decision", "by", "cause"}
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def _stopped(base: dict[str, Any], cause: str) -> AuditDraft:
    """`AuditDraft(**base, decision="cancelled", by="stop", cause=cause)`, its values not checked again:
    `base` is read from a stored request, whose model checked each (the same types as the draft's fields),
    and `shown_text` made from it. Closing with thousands of requests waiting drafts one each (the check
    took half of `decision_of`). The fields given are one set every such draft shares (frozen: it never
    changes), as pydantic would have them."""
    fields = _DRAFT_DEFAULTS.copy()
    fields.update(base)
    fields["decision"], fields["by"], fields["cause"] = "cancelled", "stop", cause
    draft = _new(AuditDraft)
    _set_dict(draft, fields)
    _set_fields_set(draft, _STOPPED_NAMES)
    _set_extra(draft, None)
    _set_private(draft, None)
    return draft


def step_of(record: InteractionRecord, by: Answerer, decision: str, detail: str | None, at: int) -> AuditDraft:
    """The draft entry of a step on the way to a decision, the request still pending: one approval of
    several required ("approved", with "approval 1 of 2"), or a hand-over ("delegated", to whom and why)."""
    request = record.request
    return AuditDraft(at=at, interaction_id=request.interaction_id, run_id=request.turn_id,
                      sequence_name=request.sequence_name, kind=request.kind, decision=decision, by="person",
                      **by.model_dump(), shown=shown_text(request), detail=detail)
