"""The record of a run: per group and per tool, what happened and when.

The record is what the run panel draws, what `seqdesk run --json` prints and what is stored; it is
kept by the runner and saved through the `RunStore` port (`gui.core.runs.store`) at the moments that
matter (start, each group's end, a wait for a person, the end), so a crash loses at most the tools
still running.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from gui.core.causes import EndCause, legacy_run_cause

ToolStatus = Literal["queued", "running", "waiting", "succeeded", "failed", "skipped", "degraded", "cancelled"]
GroupStatus = Literal["waiting", "running", "skipped", "succeeded", "failed", "stopped", "cancelled"]
RunStatus = Literal["running", "succeeded", "degraded", "failed", "stopped", "interrupted"]
FINISHED_RUN: frozenset[str] = frozenset({"succeeded", "degraded", "failed", "stopped", "interrupted"})


MAX_LOG_LINES = 200  # per tool: a server that floods its log cannot grow the record without bound
MAX_LOG_TEXT = 2000


class ToolProgressState(BaseModel):
    """The last progress a tool reported: `progress` of `total` (None: not known), and a message."""

    progress: float
    total: float | None = None
    message: str | None = None


class LogLine(BaseModel):
    at: float
    level: str
    text: str
class ProcessInfo(BaseModel):
    """A command process a tool started: what start-up needs to find it again if the app died."""

    pid: int
    started: float | None = None  # the process's own start time (tells it from a later one with the pid)


# A new record's parts set through the slots pydantic's BaseModel declares for them (its `__dict__`, its
# fields set, extra and private values): each in a third of the steps of `object.__setattr__`, for every
# tool of every run (`ToolRecord.queued`).
_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


class ToolRecord(BaseModel):
    index: int
    tool: str
    tool_call_id: str
    as_: str | None = Field(default=None, alias="as")
    status: ToolStatus = "queued"
    started_at: float | None = None
    finished_at: float | None = None
    args: Any = None  # as sent, after substitution
    result: Any = None
    error: str | None = None
    attempts: int = 0
    reason: str | None = None  # why skipped / degraded
    interaction_id: str | None = None  # the request it waits (or waited) on
    original_args: Any = None  # the arguments before the person edited them in the approval
    timed_out: bool = False  # its group's time limit ran out while it ran (or before it started)
    denied: bool = False  # it did not run: a person said no, or nobody answered in time
    waits: list[tuple[float, float | None]] = Field(default_factory=list)  # spans waiting for a person
    progress: ToolProgressState | None = None  # the last progress its server reported
    log: list[LogLine] = Field(default_factory=list)  # what its server logged during the call
    reused_from: str | None = None  # it succeeded in that run, and a resumed run kept its result
    process: ProcessInfo | None = None  # the command it started (cmd_run), recorded before it ran
    cause: EndCause | None = None  # what ended it, when its own work did not (`gui.core.causes`)
    host: str | None = None  # the host it runs on (`ToolCall.on`); None: where the run runs

    model_config = {"populate_by_name": True}

    def __setattr__(self, name: str, value: Any) -> None:
        # The runner sets these fields several times per tool call and owns their values (assignment
        # is not validated anyway): a plain store keeps pydantic's setattr machinery, ~1 µs each,
        # out of the per-tool overhead (and the set of fields given at creation as it was).
        if name in _TOOL_FIELDS:
            self.__dict__[name] = value
        else:
            super().__setattr__(name, value)


    def mark_running(self, at: float) -> None:
        """Its call began at `at`: `started_at`, and `status` running (two fields in one step, as
        `__setattr__` would set them: each call of a run does it)."""
        fields = self.__dict__
        fields["started_at"], fields["status"] = at, "running"

    def mark_succeeded(self, result: Any) -> None:
        """Its call gave back `result`: `status` succeeded, no error (as `mark_running`)."""
        fields = self.__dict__
        fields["status"], fields["result"], fields["error"] = "succeeded", result, None

    @classmethod
    def queued(cls, index: int, tool: str, tool_call_id: str, as_: str | None, host: str | None = None) -> ToolRecord:
        """`ToolRecord(index=..., tool=..., tool_call_id=..., as_=..., host=...)`, a tool's record before it runs,
        without checking the values the runner made itself (a run of 1,000 tools makes 1,000 at start)."""
        record = _new(cls)
        # A copy of the defaults set as its `__dict__` (the same memory as filling the record's own dict,
        # which is made on first reading, in under half the time), then set.
        fields = _QUEUED.copy()
        fields["index"], fields["tool"], fields["tool_call_id"], fields["as_"] = index, tool, tool_call_id, as_
        fields["host"], fields["waits"], fields["log"] = host, [], []
        _set_dict(record, fields)
        _set_fields_set(record, _QUEUED_SET if host is None else _QUEUED_ON_HOST_SET)
        _set_extra(record, None)
        _set_private(record, None)
        return record

    def last_event_at(self) -> float | None:
        """When the last thing recorded of this tool happened; None when it never started."""
        moments = [t for t in (self.started_at, self.finished_at) if t is not None]
        moments += [t for span in self.waits for t in span if t is not None]
        moments += [line.at for line in self.log]
        return max(moments) if moments else None


_TOOL_FIELDS = frozenset(ToolRecord.model_fields)
_QUEUED = dict(ToolRecord(index=0, tool="", tool_call_id="").__dict__)  # the defaults (`ToolRecord.queued`)
# The fields it is given (`ToolRecord.queued`): one set (as pydantic's is) every such record shares, 0.2-0.5 KB
# a record less. pydantic changes that set only as it assigns a field, which a record does itself
# (`ToolRecord.__setattr__`), and in `model_copy`, which copies it first: shared, it never changes.
_QUEUED_SET = {"index", "tool", "tool_call_id", "as_"}
_QUEUED_ON_HOST_SET = _QUEUED_SET | {"host"}


class GroupRecord(BaseModel):
    index: int
    name: str
    status: GroupStatus = "waiting"
    started_at: float | None = None
    finished_at: float | None = None
    reason: str | None = None  # skipped because…, failed because…
    serial_reason: str | None = None  # why the tools ran one by one, when they did
    timed_out: bool = False  # its time limit ran out
    args: dict[str, Any] = Field(default_factory=dict)
    tools: list[ToolRecord] = Field(default_factory=list)
    fingerprint: str | None = None  # of the group as it ran (a resume checks it is unchanged)
    outputs: dict[str, Any] = Field(default_factory=dict)  # the slots it wrote, with their values
    reused_from: str | None = None  # it succeeded in that run; this (resumed) run kept its outputs
    cause: EndCause | None = None  # what stopped it, or kept it from running (`gui.core.causes`)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _GROUP_FIELDS:  # as `ToolRecord.__setattr__`
            self.__dict__[name] = value
        else:
            super().__setattr__(name, value)

    @classmethod
    def waiting(cls, index: int, name: str, fingerprint: str, tools: list[ToolRecord]) -> GroupRecord:
        """`GroupRecord(index=..., name=..., fingerprint=..., tools=...)`, a group's record before it runs,
        without checking the values the runner made itself (as `ToolRecord.queued`)."""
        record = _new(cls)
        fields = _WAITING.copy()  # (as `ToolRecord.queued`)
        fields["index"], fields["name"], fields["fingerprint"], fields["tools"] = index, name, fingerprint, tools
        fields["args"], fields["outputs"] = {}, {}
        _set_dict(record, fields)
        _set_fields_set(record, _WAITING_SET)
        _set_extra(record, None)
        _set_private(record, None)
        return record


_GROUP_FIELDS = frozenset(GroupRecord.model_fields)
_WAITING = dict(GroupRecord(index=0, name="").__dict__)  # the defaults (`GroupRecord.waiting`)
_WAITING_SET = {"index", "name", "tools", "fingerprint"}  # shared, as `_QUEUED_SET` is


class RunRecord(BaseModel):
    run_id: str
    sequence: str
    target: str | None = None  # a group's name when one group was called on its own
    args: dict[str, Any] = Field(default_factory=dict)
    status: RunStatus = "running"
    created_at: float
    finished_at: float | None = None
    groups: list[GroupRecord] = Field(default_factory=list)
    outputs: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    depth: int = 0
    attempt: int = 1  # 2 and more: a resumed run, continuing `resumed_from`
    resumed_from: str | None = None  # the run this one resumed (its previous attempt)
    resumed_by: str | None = None  # the run that resumed this one (its next attempt)
    schedule_id: str | None = None  # the schedule that started it
    note: str | None = None  # how it came to start, when that is worth saying (a missed schedule)
    cause: EndCause | None = None  # what stopped or interrupted it (`gui.core.causes`); None: it ended by itself
    # Where the Stop that ended it was pressed, when a team's store says (`RunStopRequests`): the SeqDesk
    # process (its machine and process id) that asked; None on a lone desktop, or when it was not stopped.
    stopped_by: str | None = None
    # When the agent that asked for it (over MCP) stopped waiting for it, its client having given up,
    # while the run went on for the person (`gui.core.door.agent_left`); None: nobody stopped waiting.
    agent_left_at: float | None = None
    # Who started it, on a team server (their requests know it: they may not approve its steps themselves,
    # `gui.core.asks.approvers`); None on the desktop, or when a schedule or an earlier version started it.
    started_by: str | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _RUN_FIELDS:  # as `ToolRecord.__setattr__`
            self.__dict__[name] = value
        else:
            super().__setattr__(name, value)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_RUN

    @model_validator(mode="after")
    def _read_old_record(self) -> RunRecord:
        """A record kept before causes were reads with the cause it tells; an interrupted one ends at
        its last event (such records said it ended as it began) with nothing left queued."""
        if self.cause is None and self.status in ("stopped", "interrupted"):
            cause = legacy_run_cause(self.status, self.error)
            if cause is not None:
                self.cause = cause
                self._pass_cause(cause)
        if self.status == "interrupted":
            if self.finished_at is None or self.finished_at == self.created_at:
                self.finished_at = self.last_event_at()
            self.settle("failed", "the app stopped", self.finished_at, self.cause)
            for trec in (t for g in self.groups for t in g.tools if t.started_at is not None and t.finished_at is None):
                trec.finished_at = trec.last_event_at()  # it ended as far as its record goes
        return self

    def _pass_cause(self, cause: EndCause) -> None:
        """An old record: the groups and tools its end cut short get the run's cause (a tool that another
        tool's failure cancelled, or whose request was cancelled for another reason, keeps its own)."""
        for grec in self.groups:
            if grec.cause is None and (grec.status in ("stopped", "cancelled", "waiting")
                                       or grec.reason == "interrupted: the app stopped"):
                grec.cause = cause
            for trec in grec.tools:
                error = trec.error or ""
                by_end = (trec.status in ("cancelled", "queued") and not error.startswith("cancelled: ")) or (
                    trec.denied and error.endswith(("(the run was stopped)", "(the app was closed)")))
                if trec.cause is None and by_end:
                    trec.cause = cause

    def last_event_at(self) -> float:
        """When the last thing recorded of this run happened (its start when nothing else was)."""
        moments = [self.created_at]
        for grec in self.groups:
            moments += [t for t in (grec.started_at, grec.finished_at) if t is not None]
            moments += [at for trec in grec.tools if (at := trec.last_event_at()) is not None]
        return max(moments)

    def settle(self, group_status: GroupStatus, why: str, now: float, cause: EndCause | None = None) -> None:
        """End every group and tool that has not ended, so a finished record shows nothing as still
        queued, running or waiting: a running group becomes `group_status`, the rest `cancelled`;
        each gets `cause` (what ended the run, when something did)."""
        for grec in self.groups:
            if grec.status == "running":
                grec.status, grec.reason = group_status, grec.reason or why
                grec.finished_at = grec.finished_at or now
                grec.cause = grec.cause or cause
            elif grec.status == "waiting":
                grec.status, grec.reason = "cancelled", grec.reason or f"not run: {why}"
                grec.cause = grec.cause or cause
            for trec in grec.tools:
                status = trec.status
                if status == "queued":
                    trec.status, trec.reason = "cancelled", trec.reason or f"not run: {why}"
                    trec.cause = trec.cause or cause
                elif status == "running" or status == "waiting":
                    trec.status, trec.error = "cancelled", trec.error or why
                    trec.finished_at = trec.finished_at or now
                    trec.cause = trec.cause or cause

    def to_summary_json(self) -> dict[str, Any]:
        """The shape `seqdesk run --json` prints."""
        groups = []
        for g in self.groups:
            tools = []
            for t in g.tools:
                item: dict[str, Any] = {"tool": t.tool, "status": t.status, "started_at": t.started_at,
                                        "finished_at": t.finished_at, "attempts": t.attempts}
                if t.error is not None:
                    item["error"] = t.error
                else:
                    item["result"] = t.result
                tools.append(item)
            group: dict[str, Any] = {"name": g.name, "status": g.status, "reason": g.reason, "tools": tools}
            if g.reused_from is not None:
                group["kept_from"] = g.reused_from
            groups.append(group)
        summary: dict[str, Any] = {"run_id": self.run_id, "sequence": self.sequence, "status": self.status,
                                   "error": self.error, "outputs": self.outputs, "groups": groups}
        if self.resumed_from is not None:
            summary.update(attempt=self.attempt, resumed_from=self.resumed_from)
        if self.cause is not None:
            summary["cause"] = self.cause  # what stopped it (`gui.core.causes`)
        if self.agent_left_at is not None:
            summary["agent_left_at"] = self.agent_left_at  # the agent stopped waiting; the run went on
        return summary


_RUN_FIELDS = frozenset(RunRecord.model_fields)
