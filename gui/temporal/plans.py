"""What the run's workflow and its activities hand each other: plain dataclasses, nothing of the core.

The workflow only orders steps; every decision (does the group run, one by one or gathered, what
its tools' outcomes make of it) is taken by an activity, with the in-process runner's own code.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class GroupRef:
    run_id: str
    group: int


ASKED = "asked:"  # what `call_tool` says of a call that paused for its approval: "asked:<request id>"
CALLED = "called:"  # of a seq_call that paused while the run it called goes on as a child workflow: "called:<run id>"


def workflow_id(run_id: str) -> str:
    """The id of a run's workflow (a run that seq_call called too: its child workflow's)."""
    return f"seqdesk-run-{run_id}"


@dataclass(frozen=True)
class Child:
    """A run that a seq_call of group `group`, tool `tool` called, going on as a child workflow."""

    group: int
    tool: int
    run_id: str


@dataclass(frozen=True)
class ToolRef:
    run_id: str
    group: int
    tool: int
    answered: str | None = None  # the request the call asked before it paused, now answered
    called: str | None = None  # the run the call (seq_call) called before it paused, now ended


@dataclass(frozen=True)
class GroupPlan:
    """How a group goes: `kind` is "kept" (from the attempt resumed), "failed" (before any tool),
    "skipped" (its condition is false) or "run"; `tools`: the calls to make (those not kept)."""

    kind: str
    serial: bool = False
    tools: list[int] = field(default_factory=list)
    timeout: float | None = None
    abort: bool = True  # a failed tool cuts the group short (on_error is not continue)


@dataclass(frozen=True)
class Cut:
    """The workflow cuts a group's tools short: `why` is "abort" (a tool failed) or "timeout"."""

    run_id: str
    group: int
    why: str
    children: list[Child] = field(default_factory=list)  # runs its seq_calls called, going on: stopped too


@dataclass(frozen=True)
class GroupEnd:
    run_id: str
    group: int
    ran: bool = True
    timed_out: bool = False
    aborted: bool = False
    failed_at: int | None = None  # a one-by-one group: the tool that failed, the later ones not run


@dataclass(frozen=True)
class RunEnd:
    run_id: str
    stopped: bool = False
    error: str | None = None  # an activity itself failed: the run ends failed, saying so
    children: list[Child] = field(default_factory=list)  # runs its seq_calls called, going on: stopped too
