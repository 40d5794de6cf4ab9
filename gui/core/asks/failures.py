"""Why a request or an answer could not be taken: the interaction failures (`gui.core.errors` draws them).

Raised by the service (`gui.core.asks.service`), by the waiting requests it holds
(`gui.core.asks.waiting`) and by its collaborators (`gui.core.asks.approvers`, `gui.core.asks.follow_ups`);
each `code` is stable, each message a sentence for people.
"""

from __future__ import annotations

import time

from gui.core.asks.interactions import CancelledResult, InteractionRecord
from gui.core.errors import Conflict, Invalid, NotFound


class InteractionError(Conflict):
    """Base of every interaction failure: `code` is stable, the message is for people."""

    code = "interaction-error"

    def __init__(self, message: str, interaction_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.interaction_id = interaction_id


class InteractionValidationError(Invalid, InteractionError):
    """The response does not fit the request; the interaction stays pending."""

    code = "invalid-response"


class InteractionNotPendingError(InteractionError):
    """The interaction has ended (answered, expired or cancelled): nothing can change it now."""

    code = "not-pending"


class InteractionNotFoundError(NotFound, InteractionNotPendingError):
    """No interaction has this id (so it is not pending either); its code is its family's, `not-found`."""


def ended_message(record: InteractionRecord) -> str:
    """Why a non-pending interaction cannot take an answer, for the person who tried."""
    iid = record.interaction_id
    at = ""
    if record.resolved_at is not None:
        at = time.strftime("%H:%M:%S", time.localtime(record.resolved_at / 1000))
    if record.status == "resolved":
        how = "approved automatically" if record.auto else "answered"
        return f"interaction {iid} was already {how}" + (f" at {at}" if at else "")
    if record.status == "expired":
        return f"interaction {iid} has expired" + (f" (at {at})" if at else "")
    if record.status == "cancelled":
        reason = record.result.reason if isinstance(record.result, CancelledResult) else "unknown reason"
        return f"interaction {iid} was cancelled ({reason})" + (f" at {at}" if at else "")
    return f"interaction {iid} is still pending"
