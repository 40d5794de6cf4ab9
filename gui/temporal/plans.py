"""What the run's workflow and its activities hand each other: plain dataclasses, nothing of the core.

The workflow only orders steps; every decision (does the group run, one by one or gathered, what
its tools' outcomes make of it) is taken by an activity, with the in-process runner's own code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GroupRef:
    run_id: str
    group: int


CUT = "cut"  # what `call_tool` says of a call cut short: the group's later tools are not called
ASKED = "asked:"  # what `call_tool` says of a call that paused for its approval: "asked:<request id>"
CALLED = "called:"  # of a seq_call that paused while the run it called goes on as a child workflow: "called:<run id>"
ON_HOST = "on-host:"  # of a step on a host, signed and paused while the workflow sends it: "on-host:<HostStep JSON>"


def workflow_id(run_id: str) -> str:
    """The id of a run's workflow (a run that seq_call called too: its child workflow's)."""
    return f"seqdesk-run-{run_id}"


def call_of(workflow: str, activity: str) -> str:
    """The id of one call to a host (`HostStep.call_id`): the workflow that sends it, and its activity there."""
    return f"{workflow}/{activity}"


@dataclass(frozen=True)
class Child:
    """A run that a seq_call of group `group`, tool `tool` called, going on as a child workflow."""

    group: int
    tool: int
    run_id: str


@dataclass(frozen=True)
class HostStep:
    """A step for its host, as the app signs it and the run's workflow sends it (`gui.temporal.host_steps`)."""

    host: str
    tool: str
    args: dict[str, Any]
    step_id: str  # the step's tool_call_id: SEQDESK_STEP_ID on the host too
    run_id: str
    sequence_name: str = ""
    group_name: str = ""
    attempts: int = 1  # how many times a call whose worker died is made (on_error: retry)
    deadline: float | None = None
    # Signed by the app (`gui.temporal.signing`): the host runs it only when the signature holds.
    call_id: str = ""  # `call_of` the run's workflow and the step's activity: no other call can send it again
    approval: str | None = None  # the approval request that allowed it; None: its tool asks none
    key_id: str = ""
    expires: float = 0.0
    signature: str = ""

    @property
    def activity_id(self) -> str:
        return self.call_id.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class HostResult:
    """What a host gave back for a `HostStep`."""

    ok: bool
    result: Any = None
    error: str | None = None
    attempt: int = 1  # the activity's attempt that gave it (> 1: an earlier one's worker died)
    log: list[tuple[str, str]] = field(default_factory=list)
    worker: str = ""
    lost: bool = False  # its last attempt's worker stopped (heartbeat timeout): it may have run there


@dataclass(frozen=True)
class ToolRef:
    run_id: str
    group: int
    tool: int
    answered: str | None = None  # the request the call asked before it paused, now answered
    called: str | None = None  # the run the call (seq_call) called before it paused, now ended
    hosted: HostResult | None = None  # what its host gave back, the call sent there before it paused


@dataclass(frozen=True)
class GroupPlan:
    """How a group goes: `kind` is "kept" (from the attempt resumed), "failed" (before any tool),
    "skipped" (its condition is false) or "run"; `tools`: the calls to make (those not kept)."""

    kind: str
    serial: bool = False
    tools: list[int] = field(default_factory=list)
    timeout: float | None = None
    abort: bool = True  # a failed tool cuts the group short (on_error is not continue)
    on_hosts: list[int] = field(default_factory=list)  # of `tools`, those that run on a host ("on")


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
