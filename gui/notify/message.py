"""What a notification says, built once and sent over every channel in its own shape."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from gui.core.asks import InteractionRecord
from gui.i18n import N_, _, format_datetime
from gui.wording import requests as fmt

NoticeKind = Literal["request", "reminder", "escalation", "handed_over", "run_failed", "test"]


@dataclass(frozen=True)
class Notice:
    kind: NoticeKind
    title: str  # "Run a command"
    asks: str  # what it asks, in one line: the command, the question...
    url: str | None = None  # where to answer it (the inbox entry), or the run
    interaction_id: str | None = None
    run_id: str | None = None
    sequence: str | None = None
    expires_at: int | None = None  # ms since the epoch
    created_at: float = 0.0  # s since the epoch, when the notice was made
    for_whom: tuple[str, ...] = ()  # `role:NAME` / `person:NAME` it is meant for (empty: whoever may answer)

    def payload(self) -> dict[str, Any]:
        """The webhook's JSON."""
        return {"event": self.kind, "interaction_id": self.interaction_id, "title": self.title, "asks": self.asks,
                "expires_at": iso(self.expires_at), "url": self.url, "run_id": self.run_id,
                "sequence": self.sequence, "for": list(self.for_whom), "app": "SeqDesk"}

    def subject(self) -> str:
        return f"SeqDesk: {self.title}"

    def text(self) -> str:
        lines = [self.asks]
        if self.for_whom:
            lines.append(_("For: {whom}").format(whom=", ".join(self.for_whom)))
        if self.sequence:
            lines.append(_("Sequence: {name}").format(name=self.sequence))
        if self.expires_at is not None:
            lines.append(_("Answer by {time} (after that it is not done).").format(
                time=format_datetime(self.expires_at / 1000, "time")))
        if self.url:
            lines.append(_("Open it: {url}").format(url=self.url))
        return "\n".join(lines)


def iso(ms: int | None) -> str | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z")


def for_request(record: InteractionRecord, base_url: str | None) -> Notice:
    request = record.request
    where = " › ".join(fmt.source_parts(request))
    asks = fmt.preview(request) or fmt.title(request)
    return Notice("request", fmt.title(request), asks[:500],
                  url=f"{base_url}/inbox/{record.interaction_id}" if base_url else None,
                  interaction_id=record.interaction_id, run_id=request.turn_id or None,
                  sequence=where or request.sequence_name or None, expires_at=request.expires_at,
                  created_at=time.time())


_FOLLOW_UPS: dict[str, tuple[NoticeKind, str]] = {
    "reminded": ("reminder", N_("Still waiting: {title}")),
    "escalated": ("escalation", N_("You are asked as well: {title}")),
    "handed_over": ("handed_over", N_("Handed to you: {title}")),
}


def for_follow_up(record: InteractionRecord, change: str, for_whom: tuple[str, ...],
                  base_url: str | None) -> Notice | None:
    """A reminder, an escalation or a hand-over of a request still waiting (None: a change nobody is
    told of, such as one approval of several)."""
    found = _FOLLOW_UPS.get(change)
    if found is None:
        return None
    kind, title = found
    notice = for_request(record, base_url)
    words = _(title).format(title=notice.title)
    if change == "handed_over" and record.handovers and record.handovers[-1].note:
        words += f" ({record.handovers[-1].note[:200]})"
    return Notice(kind, words, notice.asks, url=notice.url, interaction_id=notice.interaction_id,
                  run_id=notice.run_id, sequence=notice.sequence, expires_at=notice.expires_at,
                  created_at=notice.created_at, for_whom=for_whom)


def for_failed_run(run_id: str | None, sequence: str, error: str | None, base_url: str | None) -> Notice:
    title = _("“{name}” failed").format(name=sequence) if sequence else _("A sequence failed")
    return Notice("run_failed", title, (error or _("The run failed."))[:500],
                  url=f"{base_url}/run/{run_id}" if base_url and run_id else None, run_id=run_id,
                  sequence=sequence or None, created_at=time.time())


def test_notice(base_url: str | None) -> Notice:
    return Notice("test", _("A test from SeqDesk"), _("If you read this, SeqDesk can reach you here."),
                  url=f"{base_url}/inbox" if base_url else None, created_at=time.time())
