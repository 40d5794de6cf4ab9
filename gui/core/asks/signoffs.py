"""What people did to a request before it ended: each approval given (`Signoff`) while more are
required, and each hand-over to someone else (`Handover`), kept on the stored record in order."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Signoff(BaseModel):
    """One person's approval of a request that needs several: who, the way in and token, and when."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    person: str
    via: str | None = None  # app, phone, cli, api, mcp (`gui.core.asks.audit.Via`)
    token: str | None = None  # the label of the personal token used, never the secret
    at: int  # ms since the epoch


class Handover(BaseModel):
    """A person handed the request to someone else (`"person:NAME"` or `"role:NAME"`), with a note."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    by: str
    to: str
    note: str = ""
    at: int  # ms since the epoch
