"""The HTTP API's request and response bodies, shared by the routes (`gui.api`) and the client that
calls them (`gui.remote`): one definition, so the two sides cannot drift apart."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from gui.core.causes import CancelReason
from gui.core.door import MAX_BATCH, BatchAnswer

RUN_BODY = 'a JSON object like {"sequence": "name", "args": {}}'
# `POST /api/interactions/{id}/respond`: which surface answered (`cli`, `mcp`) when it answered through the
# HTTP API; without it, the answer is recorded as given through the HTTP API (`gui.core.asks.audit`).
ANSWERED_VIA = "x-seqdesk-via"  # lower case, as ASGI carries header names
CLIENT_PID = "x-seqdesk-pid"  # the process of a door using the app (an app started for programs ends after them)


class StartRun(BaseModel):
    """`POST /api/runs`: a saved sequence (or group) by name, or an unsaved document."""

    model_config = ConfigDict(extra="forbid", strict=True)

    sequence: str | None = Field(default=None, min_length=1)
    document: dict[str, Any] | None = None  # an unsaved sequence (a file given to `seqdesk run`)
    args: dict[str, Any] | None = None


class CheckBody(BaseModel):
    """`POST /api/check`: validate without saving (`replacing`: the saved sequence it would replace;
    `as_new`: a saved sequence of the document's name is a conflict, not something to replace)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    document: Any
    replacing: str | None = None
    as_new: bool = False


class StopBody(BaseModel):
    """`POST /api/runs/{id}/stop` (a body is optional): who stops it, as its record will say. Only what a
    client knows of itself: the person (the default), or an agent that stopped waiting for it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    cause: Literal["person", "agent_gave_up", "agent_cancelled"] = "person"


class CancelBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    reason: CancelReason = "no_one_to_ask"


class HandOverBody(BaseModel):
    """`POST /api/interactions/{id}/hand-over`: to whom (`person:NAME` or `role:NAME`), and why."""

    model_config = ConfigDict(extra="forbid", strict=True)

    to: str = Field(min_length=1, max_length=200)
    note: str = Field(default="", max_length=2000)


class BatchBody(BaseModel):
    """`POST /api/interactions/batch`: several answers at once, each `{"interaction_id", "response"}`."""

    model_config = ConfigDict(extra="forbid")

    answers: list[BatchAnswer] = Field(min_length=1, max_length=MAX_BATCH)


class SavedBody(BaseModel):
    """What a save (`POST /api/sequences`, `PUT /api/sequences/{name}`) answers."""

    sequence: dict[str, Any]  # the summary: name, description, groups, signature
    document: dict[str, Any]  # the saved sequence itself
    warnings: list[dict[str, Any]] = Field(default_factory=list)
