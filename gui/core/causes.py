"""Why a run, a group, a tool or a request ended when its own work did not end it: the cause.

A cause is a stable code (`EndCause`), decided where the end happens (the person's Stop, the app
closing, start-up after the app was killed, an agent's client giving up, a group's time limit, a
request's expiry, an agent's cancel) and carried as data to the record: `RunRecord.cause`, `GroupRecord.cause`,
`ToolRecord.cause` and a cancelled request's `CancelledResult.cause`. Nothing reads the cause back
from English text, except `legacy_run_cause` for records kept before causes were (once, in one place).

`CAUSES` is the one table of their words, marked for the catalogue (`N_`): every surface (the run
page, the runs list, the inbox, the CLI, notifications) says a cause with it, each in the person's
language through its `_`. A cause without words is a failing test (`tests/core/test_causes.py`).
Pure: nothing but the standard library and the core's marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from gui.core.marks import N_

# Why a request to a person was cancelled before anyone answered it.
CancelReason = Literal["turn_stopped", "session_disposed", "runtime_interrupted", "no_one_to_ask"]


EndCause = Literal[
    "person",  # the person stopped it (Stop on the run page, `POST /api/runs/{id}/stop`, Ctrl+C in `seqdesk run`)
    "app_closed",  # the app was closed (its window, Ctrl+C or SIGTERM): it ended what it was doing
    "app_stopped",  # the app stopped without closing (killed, crashed, power lost): found at the next start
    "agent_gave_up",  # the agent that asked for the run (over MCP) stopped waiting for it
    "agent_cancelled",  # the agent that asked for the run (over MCP) cancelled it (`tasks/cancel`)
    "group_timeout",  # the time limit of its group (or of the group that called it) ran out
    "sibling_failed",  # another tool of its group failed, and the group does not go on after a failure
    "expired",  # nobody answered the request in time
    "no_one_to_ask",  # it needed a person and there was nobody to ask (`seqdesk run` with no terminal)
    "schedule_busy",  # its schedule's turn came while the run the schedule had started before still ran
]
END_CAUSES: tuple[EndCause, ...] = get_args(EndCause)

# How a thing a cause ended is shown (the run screens' state for it): a person's Stop is not a crash.
EndLook = Literal["stopped_by_you", "stopped", "interrupted", "timed_out", "expired", "cancelled", "skipped"]

# What a client of the app (the CLI, `seqdesk mcp`, a script) may say stopped a run it stops over the
# API: only what it knows about itself. The app's own causes are never taken from outside.
CLIENT_CAUSES: frozenset[EndCause] = frozenset({"person", "agent_gave_up", "agent_cancelled"})


@dataclass(frozen=True)
class CauseWords:
    look: EndLook
    why: str  # the cause as a clause, after "Not run: …", "Cancelled: …", "Why: …"
    ended: str  # the end on its own line, naming how it ended: "Stopped by you", "Stopped: the app was closed"
    error: str  # what a stopped run's `error` keeps (English, for the API, MCP and `--json`)


CAUSES: dict[EndCause, CauseWords] = {
    "person": CauseWords("stopped_by_you", N_("you stopped the run"), N_("Stopped by you"), "stopped by the user"),
    "app_closed": CauseWords("stopped", N_("the app was closed"), N_("Stopped: the app was closed"),
                             "stopped: the app was closed"),
    "app_stopped": CauseWords("interrupted", N_("the app stopped"), N_("Interrupted: the app stopped"),
                              "interrupted: the app stopped"),
    "agent_gave_up": CauseWords("stopped", N_("the agent stopped waiting"), N_("Stopped: the agent stopped waiting"),
                                "stopped: the agent stopped waiting"),
    "agent_cancelled": CauseWords("stopped", N_("the agent cancelled it"), N_("Stopped: the agent cancelled it"),
                                  "stopped: the agent cancelled it"),
    "group_timeout": CauseWords("timed_out", N_("the group's time limit ran out"),
                                N_("Timed out: the group's time limit ran out"),
                                "stopped: the group's time limit ran out"),
    "sibling_failed": CauseWords("cancelled", N_("another tool of the group failed"),
                                 N_("Cancelled: another tool of the group failed"),
                                 "stopped: another tool of the group failed"),
    "expired": CauseWords("expired", N_("nobody answered in time"), N_("Expired: nobody answered in time"),
                          "stopped: nobody answered in time"),
    "no_one_to_ask": CauseWords("cancelled", N_("there was no one to ask"), N_("Cancelled: there was no one to ask"),
                                "stopped: there was no one to ask"),
    "schedule_busy": CauseWords("skipped", N_("the run its schedule started before was still running"),
                                N_("Skipped: the run its schedule started before was still running"),
                                "skipped: the run its schedule started before was still running"),
}

# A request cancelled with one of the seed's reasons and no cause (kept before causes were): the cause
# the reason alone tells. `turn_stopped` alone does not tell who stopped the run.
REASON_CAUSES: dict[str, EndCause] = {"session_disposed": "app_closed", "runtime_interrupted": "app_stopped",
                                      "no_one_to_ask": "no_one_to_ask"}

def reason_for(cause: EndCause) -> CancelReason:
    """The seed's cancel reason for a cause: the app closing or dying has its own, the rest stop a run."""
    if cause == "app_closed":
        return "session_disposed"
    if cause == "app_stopped":
        return "runtime_interrupted"
    if cause == "no_one_to_ask":
        return "no_one_to_ask"
    return "turn_stopped"


# A stopped run's error as kept before causes were, and the cause it told.
_LEGACY_ERRORS: dict[str, EndCause] = {"stopped by the user": "person", "stopped: the app was closed": "app_closed"}


def as_cause(value: object) -> EndCause | None:
    """`value` as a cause; None when it is none (an event or a record from a newer SeqDesk, read here)."""
    return value if value in END_CAUSES else None


def legacy_run_cause(status: str, error: str | None) -> EndCause | None:
    """What ended a run kept before causes were, from the little its record says; None when unknown."""
    if status == "interrupted":
        return "app_stopped"
    if status == "stopped":
        return _LEGACY_ERRORS.get(error or "")
    return None
