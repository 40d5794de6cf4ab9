"""One tool call inside a group: look the tool up, substitute and validate its args, ask for
approval when it needs it, call it (retrying when the group says so), check its result's type.

Every outcome ends in the `ToolRecord`; this module never decides what happens to the group:
that is the runner's job, from the record's status.
"""

from __future__ import annotations

import asyncio
import math
import time
import uuid
from collections.abc import Callable
from typing import Any

from gui.core.asks import (
    FORM_TIMEOUT,
    ElicitationRequest,
    ElicitationResponse,
    InteractionPort,
    ShellApprovalRequest,
    ToolApprovalRequest,
    ToolSource,
)
from gui.core.causes import EndCause
from gui.core.errors import ToolArgumentError, ToolError
from gui.core.events import (
    EventBus,
    ToolEvent,
    ToolFinished,
    ToolLog,
    ToolProgress,
    ToolResumed,
    ToolRetrying,
    ToolStarted,
    ToolWaiting,
)
from gui.core.marks import N_
from gui.core.runs.call_scope import CallScope
from gui.core.runs.hosts import NO_HOSTS_HERE, HostCalls
from gui.core.runs.observed import ObservedPort
from gui.core.runs.records import (
    MAX_LOG_LINES,
    MAX_LOG_TEXT,
    LogLine,
    ProcessInfo,
    ToolProgressState,
    ToolRecord,
)
from gui.core.sequences import (
    RETRY_ATTEMPTS,
    Bound,
    Group,
    Missing,
    OnError,
    SlotType,
    SubstitutionError,
    ToolCall,
    bind,
    bind_literal,
    matches_type,
    nearest_names,
    step_fingerprint,
    type_name,
)
from gui.core.tools import ApprovalSummary, Registry, ShellApproval, Tool, ToolContext, ToolDeclined

_WORDS = {"string": N_("text"), "number": N_("a number"), "boolean": N_("yes/no"), "array": N_("a list"),
          "object": N_("an object"), "null": N_("nothing")}


class _Denied(ToolError):
    """Not retried: a person said no, or nobody answered."""


class AwaitedElsewhere(BaseException):  # noqa: N818 (not an error: the call pauses)
    """An approval's `outcome()` raises it when the executor waits for the answer itself (a durable
    workflow): the call ends here, its record waiting, and is made again once the answer is stored,
    with that answer. A BaseException, so that no `except Exception` takes it for a failure."""

    def __init__(self, interaction_id: str) -> None:
        super().__init__(interaction_id)
        self.interaction_id = interaction_id


# What cuts a tool short inside its group, while the run goes on to end otherwise: its own request is
# cancelled with that cause at once (a run's stop cancels its requests with the stop's cause).
_GROUP_CAUSES: frozenset[EndCause] = frozenset({"sibling_failed", "group_timeout"})
_new_context = object.__new__  # (`ToolCaller._context`)


def _finite(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def _still_cancelled() -> None:
    """Re-raise a cancellation that a tool swallowed (it returned instead of stopping): the run was
    stopped, or its group's time ran out, so nothing after this tool may run."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class ToolCaller:
    def __init__(self, registry: Registry, interactions: InteractionPort, bus: EventBus,
                 clock: Callable[[], float] = time.time, backoff: float = 0.2) -> None:
        self.registry = registry
        self.interactions = interactions
        self.bus = bus
        self.clock = clock
        self.backoff = backoff
        self.hosts: HostCalls | None = None  # what carries a step to its host (`ToolCall.on`), if anything

    def asks(self, tool_name: str) -> bool:
        """Whether the tool of that name, as registered now, asks before it runs."""
        tool = self.registry.get(tool_name)
        return tool is not None and tool.approval != "none"

    # -- events --------------------------------------------------------------------------------
    def _publish(self, kind: type[ToolEvent], scope: CallScope, record: ToolRecord, **data: Any) -> None:
        if not self.bus.listened:  # two events per tool: nothing gathered for nobody
            return
        self.bus.publish(kind, scope.run_id, group=scope.group_record.index, group_name=scope.group.name,
                         tool=record.index, tool_name=record.tool, status=record.status, **data)

    def finished(self, scope: CallScope, record: ToolRecord) -> None:
        """Say that the call ended (`tool.finished`), as its record says."""
        if not self.bus.listened:
            return
        self._publish(ToolFinished, scope, record, error=record.error, timed_out=record.timed_out,
                      denied=record.denied)

    def waiting(self, scope: CallScope, record: ToolRecord, interaction_id: str) -> None:
        record.status = "waiting"
        record.interaction_id = interaction_id
        record.waits.append((self.clock(), None))
        self._publish(ToolWaiting, scope, record, interaction_id=interaction_id)
        scope.save_soon()

    def resumed(self, scope: CallScope, record: ToolRecord) -> None:
        if record.waits and record.waits[-1][1] is None:
            record.waits[-1] = (record.waits[-1][0], self.clock())
        if record.status == "waiting":
            record.status = "running"
        self._publish(ToolResumed, scope, record)

    # -- the call ------------------------------------------------------------------------------
    async def run(self, scope: CallScope, call: ToolCall, record: ToolRecord, *, again: bool = False,
                  side_by_side: bool = False) -> None:
        """Run one call to its end; the outcome is in `record.status`. Re-raises cancellation.
        `again`: the call paused (a durable executor waited for the run it called) and is made again.
        `side_by_side`: one of a gathered group's calls, which ends its own task (or, started eagerly
        and never waiting, could not have been cancelled): nothing runs after it there, so a
        cancellation its tool swallowed needs no looking for (`_still_cancelled`)."""
        first = 1
        if (again or record.status == "waiting") and record.started_at is not None:
            if record.status == "waiting":
                self.resumed(scope, record)  # made again once its answer came (`AwaitedElsewhere`)
            first = max(record.attempts, 1)  # in the attempt that paused (on_error: retry counts on)
        else:
            record.mark_running(self.clock())
            if self.bus.listened:
                self._publish(ToolStarted, scope, record)
        try:
            prepared = self._prepare(scope, call, record)
            if prepared is not None:  # (one coroutine less per waiting call than a `_run` of its own)
                tool, bound, args = prepared
                if tool.approval != "none":
                    # A tool that changes things: its start (and every group that ended before it) is on
                    # disk before it asks or acts, so a crash can never hide that it may have acted.
                    await scope.save_now()
                try:
                    await self._attempts(scope, call, record, tool, bound, args, first)
                finally:
                    if tool.approval != "none" or record.process is not None:
                        scope.save_soon()  # and its end soon after
        except asyncio.CancelledError:
            if record.status in ("running", "waiting", "queued"):
                record.status = "cancelled"
                record.error = record.error or "cancelled"
                record.cause = record.cause or scope.cancel_cause()
            if record.interaction_id is not None and record.cause in _GROUP_CAUSES:
                # its request, cut short by the group, says why (the run's end would say only "stopped")
                await asyncio.shield(self.interactions.cancel(record.interaction_id, "turn_stopped", record.cause))
            record.finished_at = self.clock()
            self.finished(scope, record)
            raise
        record.finished_at = self.clock()
        if self.bus.listened:
            self.finished(scope, record)
        if not side_by_side:
            _still_cancelled()

    def _prepare(self, scope: CallScope, call: ToolCall,
                 record: ToolRecord) -> tuple[Tool, Bound, dict[str, Any]] | None:
        """The tool, its arguments bound (`Bound`: the inputs they use, those run as code, for an
        approval) and checked; None when the call ends here (no such tool, arguments that do not
        fit): its record says how."""
        tool = self.registry.get(call.tool)
        if tool is None:
            self._missing(scope.group, call, record)
            return None
        bound: Bound | None = None
        try:
            bound = bind_literal(call.args) if call.literal else bind(call.args, scope.args, shell=tool.shell_text_args)
            args = tool.validate_args(bound.args)
        except (SubstitutionError, ToolArgumentError) as exc:
            if bound is not None:
                record.args = bound.args  # as sent, when they do not fit
            self._fail(record, str(exc))
            return None
        except BaseException:  # (a tool's check that crashed: its record holds the args as sent too)
            if bound is not None:
                record.args = bound.args
            raise
        record.args = dict(args)  # plain JSON values (a tool's check may hand it more: `CheckedArgs`)
        return tool, bound, args

    async def _attempts(self, scope: CallScope, call: ToolCall, record: ToolRecord, tool: Tool, bound: Bound,
                        args: dict[str, Any], first: int = 1) -> None:
        attempts = RETRY_ATTEMPTS if scope.group.on_error is OnError.RETRY else 1
        for attempt in range(first, attempts + 1):
            record.attempts = attempt
            try:
                edited = shown = None
                if tool.approval != "none":
                    edited, shown = await self._approve(scope, tool, bound, args, record)
                changed = False
                if edited is not None:  # the person changed the arguments before approving: run those
                    sent = tool.validate_args(edited)
                    if sent != args:  # the first asked stay the original, whichever attempt was changed
                        record.original_args = record.args if record.original_args is None else record.original_args
                        args = sent
                        record.args = dict(sent)
                        changed = True
                # what the approval showed, for these args, and which request it was
                ctx = self._context(scope, record, None if changed else shown,
                                    record.interaction_id if tool.approval != "none" else None)
                if call.on is None:
                    result = await tool.call(args, ctx)
                elif self.hosts is None:
                    raise ToolError(NO_HOSTS_HERE.format(host=call.on))
                else:
                    result = await self.hosts.call(call.on, tool.name, args, ctx, attempt=attempt,
                                                   retry=scope.group.on_error is OnError.RETRY)
                if call.as_ is not None:
                    self._check_result(scope.group, call.as_, result)
            except (_Denied, ToolDeclined) as exc:
                self._fail(record, str(exc))
                record.denied = True
                if isinstance(exc, ToolDeclined):
                    record.cause = exc.cause
                return
            except ToolError as exc:
                self._fail(record, str(exc))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a tool's own bug: reported, never crashing the run
                self._fail(record, f"the tool '{tool.name}' crashed: {type(exc).__name__}: {exc}")
            else:
                record.mark_succeeded(result)
                return
            if attempt < attempts:
                _still_cancelled()
                delay = self.backoff * (2 ** (attempt - 1))
                self._publish(ToolRetrying, scope, record, attempt=attempt + 1, of=attempts,
                              delay=delay, error=record.error)
                record.status = "running"
                await asyncio.sleep(delay)  # the backoff itself, not a wait for an event

    def _missing(self, group: Group, call: ToolCall, record: ToolRecord) -> None:
        near = nearest_names(call.tool, self.registry.names())
        message = f"no tool named '{call.tool}' is available" + (
            f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else "")
        if group.missing is Missing.FAIL:
            self._fail(record, message)
        elif group.missing is Missing.SKIP:
            record.status, record.reason = "skipped", f"{message}; skipped (missing: skip)"
        else:
            record.status, record.reason = "degraded", f"{message}; skipped, and the run is marked degraded"

    @staticmethod
    def _fail(record: ToolRecord, message: str) -> None:
        record.status, record.error = "failed", message

    def _check_result(self, group: Group, slot: str, result: Any) -> None:
        """Whether the result fits the output slot `slot` it is kept in; ToolError when it does not."""
        slot_type = group.out.get(slot)
        if slot_type is None or slot_type is SlotType.ARRAY:
            return
        if isinstance(result, str) and slot_type is SlotType.OBJECT:  # a tool that said nothing of its result
            raise ToolError(N_("it gave back text, but the output '{slot}' holds an object: make '{slot}' text "
                               "(string) to keep this result").format(slot=slot))
        if not matches_type(result, slot_type):
            raise ToolError(N_("it gave back {got}, but the output '{slot}' holds {declared}: change the output's "
                               "type to match").format(got=_WORDS.get(type_name(result), type_name(result)),
                                                       slot=slot, declared=_WORDS[slot_type.value]))

    def _context(self, scope: CallScope, record: ToolRecord, approved: object, approval: str | None) -> ToolContext:
        """The call's context, set field by field (every one of them: `test_tool_call_context`): its
        `__init__` binds sixteen keywords, twice the time of the rest of it, for each call."""
        port = ObservedPort(self, scope, record)
        ctx: ToolContext = _new_context(ToolContext)
        ctx.run_id, ctx.tool_call_id, ctx.tool_name = scope.run_id, record.tool_call_id, record.tool
        ctx.sequence_name, ctx.group_name = scope.sequence_name, scope.group.name
        ctx.interactions, ctx.elicitation = port, _CallForms(self, scope, record)
        ctx.deadline, ctx.depth = scope.deadline, scope.depth
        ctx.call_sequence = port.call_sequence if scope.call_sequence is not None else None
        ctx.progress, ctx.log, ctx.record_process = port.progress, port.log, port.record_process
        ctx.approved, ctx.approval, ctx.extra = approved, approval, {}
        return ctx

    def progress(self, scope: CallScope, record: ToolRecord, done: float, total: float | None,
                 message: str | None, *, publish: bool = True) -> None:
        """The tool reports how far it has come: kept on its record (not saved for each report: the
        next save takes it along) and published as `tool.progress`."""
        if record.finished_at is not None or not _finite(done) or (total is not None and not _finite(total)):
            return
        message = message[:MAX_LOG_TEXT] if message else None
        record.progress = ToolProgressState(progress=done, total=total if total and total > 0 else None,
                                            message=message)
        if publish:
            self._publish(ToolProgress, scope, record, progress=done, total=record.progress.total, message=message)

    def log(self, scope: CallScope, record: ToolRecord, level: str, text: str) -> None:
        """A line for the tool's log in the run record (bounded), published as `tool.log`."""
        if record.finished_at is not None:
            return
        if len(record.log) >= MAX_LOG_LINES:
            if len(record.log) == MAX_LOG_LINES:
                record.log.append(LogLine(at=self.clock(), level="warning",
                                          text=f"(more than {MAX_LOG_LINES} lines: the rest is not kept)"))
            return
        text = text if len(text) <= MAX_LOG_TEXT else text[:MAX_LOG_TEXT] + " …"
        record.log.append(LogLine(at=self.clock(), level=level[:20], text=text))
        self._publish(ToolLog, scope, record, level=level[:20], message=text)
        # Not saved for each line (a chatty server would rewrite the record hundreds of times): the
        # record is saved with the lines at the tool's end, like its result.

    async def process_started(self, scope: CallScope, record: ToolRecord, pid: int, started: float | None) -> None:
        """A tool started a process (held until this returns): on disk first, so that start-up can
        find and end it if the app dies while it runs."""
        record.process = ProcessInfo(pid=pid, started=started)
        await scope.save_now()

    # -- approval ------------------------------------------------------------------------------
    async def _approve(self, scope: CallScope, tool: Tool, bound: Bound, args: dict[str, Any],
                       record: ToolRecord) -> tuple[dict[str, Any] | None, object]:
        """Ask (for a tool that needs it); the person's edited arguments, if they changed them, and what
        the approval showed (`ShellApproval.shown`, `ApprovalSummary.shown`). The inputs shown, and
        those run as code, are the ones found as the arguments were bound (`_prepare`)."""
        shell = tool.shell_approval(args)
        summary = None if shell is not None else tool.approval_summary(args)
        shown = shell.shown if shell is not None else summary.shown if summary is not None else None
        # Asked and waited for here, not through an `ObservedPort` (a waiting run keeps fewer objects); the
        # request is not kept here while it waits (the service holds it, or its copy with an end: 1 KB more).
        asked = await self.interactions.ask_approval(
            self._approval_request(scope, tool, args, record, bound, shell, summary), tool.name,
            deadline=scope.deadline)
        if asked.waiting:
            self.waiting(scope, record, asked.interaction_id)
            try:
                outcome = await asked.outcome()
            except AwaitedElsewhere:
                raise  # still waiting: resumed when the call is made again with its answer
            except BaseException:
                self.resumed(scope, record)
                raise
            self.resumed(scope, record)
        else:
            outcome = await asked.outcome()
        if outcome.auto:
            record.interaction_id = asked.interaction_id
        if not outcome.approved:
            record.cause = outcome.cause
            raise _Denied(outcome.reason or "not approved")
        return outcome.edited_input, shown

    # -- a form its MCP server asks ----------------------------------------------------------------
    async def ask_form(self, scope: CallScope, record: ToolRecord, request: ElicitationRequest) -> ElicitationResponse:
        """A form the call's MCP server asks while the call runs (`_CallForms`): in the inbox for at most
        `FORM_TIMEOUT`, never past the group's deadline, for the step's answerers; the call is marked
        waiting meanwhile, as for its approval. The reply is what the server receives."""
        if request.asking is None and request.started_by is None:
            request = request.model_copy(update={"asking": scope.asking[record.index],
                                                 "started_by": scope.execution.record.started_by})
        deadline = self.interactions.clock() + FORM_TIMEOUT
        if scope.deadline is not None:
            deadline = min(deadline, scope.deadline)
        asked = await self.interactions.ask_form(request, deadline=deadline)
        self.waiting(scope, record, asked.interaction_id)
        try:
            return await asked.response()
        finally:
            self.resumed(scope, record)

    def _approval_request(self, scope: CallScope, tool: Tool, args: dict[str, Any], record: ToolRecord,
                          bound: Bound, shell: ShellApproval | None,
                          summary: ApprovalSummary | None) -> ShellApprovalRequest | ToolApprovalRequest:
        common: dict[str, Any] = {
            "interaction_id": uuid.uuid4().hex,
            "turn_id": scope.run_id,
            "source": ToolSource(tool_call_id=record.tool_call_id, tool_name=tool.name),
            "created_at": int(self.clock() * 1000),
            "sequence_name": scope.sequence_name,
            "group_name": scope.group.name,
            "bound_inputs": bound.inputs,
            # what a rule made from this request covers: this step (fingerprinted as the run began; now, for
            # a tool that was not there then, such as one of a server connected since) of this sequence
            "step_fingerprint": (scope.execution.steps[scope.group_record.index][record.index]
                                 or step_fingerprint(scope.group.tools[record.index], scope.group)),
            "sequence_identity": scope.sequence_identity,
        }
        # Only the fields that differ from their defaults are given: the model keeps the names given (a set
        # per request), and past 18 names that set takes 2.2 KB instead of 0.7 (a waiting run's 15 KB).
        given = {"asking": scope.asking[record.index],  # who answers, how many (`gui.core.sequences.asking`)
                 "started_by": scope.execution.record.started_by, "host": record.host}
        common.update((name, value) for name, value in given.items() if value is not None)
        if shell is not None:
            # On a host, its folder is the host's: as written (empty: where the host's worker started).
            cwd = shell.cwd if record.host is None else str(args.get("cwd") or "")
            if shell.description is not None:
                common["description"] = shell.description
            if bound.as_code:
                common["run_as_code"] = bound.as_code
            return ShellApprovalRequest(**common, title=shell.title, command=shell.command, cwd=cwd,
                                        reason=shell.reason, operation=shell.operation, tool_input=args)
        titles = _input_titles(tool.input_schema(), args, from_server=tool.server is not None)
        if titles:
            common["input_titles"] = titles
        return ToolApprovalRequest(**common, validated_input=args, tool_description=tool.description,
                                   server_address=tool.server_address,
                                   summary=summary.text if summary else None,
                                   summary_highlight=summary.highlight if summary else None,
                                   summary_template=summary.words.template if summary and summary.words else None,
                                   summary_params={k: str(v) for k, v in summary.words.params}
                                   if summary and summary.words else {})


class _CallForms:
    """A call's form handler (its `ToolContext.elicitation`): the forms its MCP server asks go to the
    tool caller (`ToolCaller.ask_form`), which asks them for the call as it asks its approval. Its
    answers are the inbox's: an accept was checked against the form when the person gave it."""

    __slots__ = ("_caller", "_scope", "_record")
    answers_checked = True

    def __init__(self, caller: ToolCaller, scope: CallScope, record: ToolRecord) -> None:
        self._caller, self._scope, self._record = caller, scope, record

    async def handle_elicitation(self, req: ElicitationRequest) -> ElicitationResponse:
        return await self._caller.ask_form(self._scope, self._record, req)


def _input_titles(schema: dict[str, Any], args: dict[str, Any], *, from_server: bool) -> dict[str, str]:
    """The schema's titles of the arguments given (what the inbox labels them with). A tool server's
    titles are its own words, which SeqDesk cannot vouch for (a server could title `command` "Greeting"):
    each then keeps the argument's name beside it, "Greeting (command)", as the person approves."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return {}
    found = {name: props[name].get("title") for name in args if isinstance(props.get(name), dict)}
    titles = {name: title.strip() for name, title in found.items() if isinstance(title, str) and title.strip()}
    if from_server:
        titles = {name: title if title.casefold() == name.casefold() else f"{title} ({name})"
                  for name, title in titles.items()}
    return titles
