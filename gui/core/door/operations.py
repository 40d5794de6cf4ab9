"""The one door into SeqDesk: every operation a surface (pages, HTTP API, CLI, MCP) needs.

`Engine` implements it in this process; `gui.remote.RemoteEngine` implements it over a running
app's HTTP API, so the CLI and `seqdesk mcp` behave the same whether the app holds the data folder
or not. Surfaces call only these methods: they never reach into the runner, the catalog, the stores
or the bus. Each operation is written once, in the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Protocol, TypeVar

from gui.core.asks import (
    Answered,
    Answerer,
    ApprovalRule,
    InboxView,
    InteractionKind,
    InteractionRecord,
    InteractionStatusFilter,
)
from gui.core.causes import CancelReason, EndCause
from gui.core.door.asks import AskState, ProgramAsk
from gui.core.door.batch import BatchAnswer, BatchOutcome
from gui.core.door.mcp_servers import McpServerChange, McpServerListing, McpServerSpec, McpServerView
from gui.core.events import Event
from gui.core.queries import Page
from gui.core.runs import RunRecord, RunStatus, Schedule
from gui.core.sequences import Group, Problem, Sequence, ValidationResult
from gui.core.tools import ToolListing

T = TypeVar("T")
EventListener = Callable[[Event], None]


class EventSource(Protocol):
    def subscribe(self, listener: EventListener) -> Callable[[], None]: ...


class Saved(NamedTuple):
    """What `create` answers: the saved tree, and the validation it passed (with its warnings)."""

    sequence: Sequence
    result: ValidationResult

    @property
    def warnings(self) -> list[Problem]:
        return self.result.warnings


class Operations(Protocol):
    """Everything a surface may ask of SeqDesk."""

    @property
    def inbox_url(self) -> str | None:
        """Where this engine's requests for a person are answered when that is not the caller (an
        open app's inbox); None when the caller answers them (the app itself, a lone CLI)."""
        ...

    # -- sequences -----------------------------------------------------------------------------
    async def list_sequences(self) -> list[dict[str, Any]]: ...

    async def get(self, name: str) -> Sequence | None: ...

    async def get_sequence_document(self, name: str) -> dict[str, Any] | None: ...

    async def resolve(self, name: str) -> tuple[Sequence, Group | None]:
        """A saved sequence, or the saved group of that name with its sequence (what `start` runs by
        that name); NotFoundError."""
        ...

    async def taken_names(self, replacing: str | None = None) -> set[str]:
        """Every name a new sequence or group may not take: the saved sequences' and their groups'
        (but those of `replacing`, the saved sequence a rename frees)."""
        ...

    async def check(self, doc: Any, *, replacing: str | None = None, as_new: bool = False) -> ValidationResult:
        """Every problem of `doc` in one pass. `replacing`: the saved sequence it will replace (its group
        names are free); `as_new`: a saved sequence of the document's own name is a conflict too."""
        ...

    async def create(self, doc: Any, *, as_new: bool = False) -> Saved:
        """Validate and save in one step: a saved sequence of the same name is replaced, unless `as_new`
        (then that name is a conflict, like every other naming conflict)."""
        ...

    async def create_from(self, name: str | None, description: str, groups: Any, file: str | None) -> Saved: ...

    async def rename(self, old_name: str, doc: Any) -> Saved: ...

    async def delete(self, name: str) -> bool: ...

    def help(self) -> str: ...

    # -- tools ---------------------------------------------------------------------------------
    async def list_tools(self) -> ToolListing:
        """Every tool known now (built in and from MCP servers) with its schema, result type, whether
        it asks first and its server's state; and every configured MCP server."""
        ...

    # -- MCP servers (`gui.core.door.mcp_servers`) ----------------------------------------------
    async def list_mcp_servers(self) -> McpServerListing:
        """Every configured server, without a secret, with its connection now."""
        ...

    async def add_mcp_server(self, spec: McpServerSpec) -> McpServerView:
        """Keep a new server and start connecting it (a program server: its command runs).
        McpServerExists, McpServerInvalid; over the HTTP API it is kept turned off and untrusted
        until a person turns it on in Settings."""
        ...

    async def update_mcp_server(self, name: str, change: McpServerChange) -> McpServerView:
        """Change what `change` gives and reconnect the server; McpServerNotFound, McpServerInvalid."""
        ...

    async def remove_mcp_server(self, name: str) -> bool:
        """Forget a server and its secrets; its tools leave at once. False when there is none."""
        ...

    async def sign_in_mcp_server(self, name: str, callback: str) -> str | None:
        """Start signing in to a server at a web address: the page to send the person's browser to
        (it comes back to `callback`), or None when the server let SeqDesk in; SignInFailed."""
        ...

    async def retry_mcp_server(self, name: str) -> bool:
        """Try to connect a server now instead of waiting (after the person fixed something)."""
        ...

    # -- runs ----------------------------------------------------------------------------------
    async def start(self, name: str, args: dict[str, Any] | None = None, *,
                    started_by: str | None = None) -> RunRecord:
        """Start a saved sequence or group and return at once; `started_by`: the signed-in person (a
        team server; over HTTP the app knows who asks, and this is not sent)."""
        ...

    async def start_document(self, doc: Any, args: dict[str, Any] | None = None, *,
                             started_by: str | None = None) -> RunRecord: ...

    async def call(self, name: str, args: dict[str, Any] | None = None,
                   on_event: EventListener | None = None, *, gave_up: EndCause = "person") -> RunRecord:
        """Run to the end; if this call is cancelled (its caller gave up), the run is stopped with the
        cause `gave_up`: "person" for a person's Ctrl+C, "agent_gave_up" for an agent's client."""
        ...

    async def call_document(self, doc: Any, args: dict[str, Any] | None = None,
                            on_event: EventListener | None = None, *, gave_up: EndCause = "person") -> RunRecord: ...

    async def when_call(self, name: str, when: str, args: dict[str, Any] | None = None,
                        on_event: EventListener | None = None, *,
                        gave_up: EndCause = "person") -> RunRecord | None: ...

    async def resume(self, run_id: str) -> RunRecord:
        """Start the next attempt of a failed, interrupted or stopped run (a new run naming it in
        `resumed_from`), keeping what succeeded; LookupError if unknown, ResumeRefused (a sentence)
        when it cannot be resumed (see `gui.core.runs.resume`)."""
        ...

    async def call_resume(self, run_id: str, on_event: EventListener | None = None, *,
                          gave_up: EndCause = "person") -> RunRecord: ...

    async def stop(self, run_id: str, cause: EndCause = "person") -> bool:
        """Stop a run; `cause` is what stops it, as its record will say (see `gui.core.causes`)."""
        ...

    async def agent_stopped_waiting(self, run_id: str) -> bool:
        """The agent that asked for a run (over MCP) stopped waiting for it, its client having given up,
        and the run goes on for the person: its finished record says when (`RunRecord.agent_left_at`).
        False when the run does not go on (it ended, or there is none)."""
        ...

    async def get_run(self, run_id: str) -> RunRecord | None: ...

    async def find_run(self, run_id: str) -> RunRecord | None:
        """`get_run` that also takes the start of an id, as screens show it ("0911dd99"); an
        ambiguous start raises `gui.core.runs.run_ids.AmbiguousRunIdError`."""
        ...

    async def list_runs(self, limit: int = 100, offset: int = 0) -> list[RunRecord]: ...

    async def run_page(self, *, status: RunStatus | None = None, sequence: str | None = None,
                        started_from: float | None = None, started_to: float | None = None,
                        text: str | None = None, limit: int = 50, offset: int = 0) -> Page[RunRecord]: ...

    # -- interactions --------------------------------------------------------------------------
    async def pending(self, run_id: str | None = None) -> list[InteractionRecord]: ...

    async def interaction_page(self, *, status: InteractionStatusFilter | None = None,
                               kind: InteractionKind | None = None, run_id: str | None = None,
                               sequence: str | None = None, tool_name: str | None = None,
                               limit: int = 50, offset: int = 0) -> Page[InteractionRecord]: ...

    async def get_interaction(self, interaction_id: str) -> InteractionRecord | None: ...

    async def respond(self, interaction_id: str, response: Any, by: Answerer | None = None) -> Answered: ...

    async def cancel_interaction(self, interaction_id: str, reason: CancelReason) -> bool: ...

    async def inbox(self, person: str, view: InboxView) -> list[InteractionRecord]:
        """The pending requests in one view of `person`'s inbox (`gui.core.asks.approvers`), oldest first."""
        ...

    async def respond_many(self, answers: list[BatchAnswer], by: Answerer | None = None) -> list[BatchOutcome]:
        """Answer several requests at once, each as `respond` would, each with its own outcome."""
        ...

    async def hand_over(self, interaction_id: str, to: str, note: str = "",
                        by: Answerer | None = None) -> InteractionRecord:
        """Hand a request to `person:NAME` or `role:NAME` with a note (recorded as a delegation)."""
        ...

    # -- a program asking the person (`gui.core.door.asks`) ---------------------------------------
    async def ask(self, ask: ProgramAsk) -> AskState:
        """Put a program's approval or question in the inbox (or allow it at once by the person's rule
        for it); TooManyAsks when too many of them wait."""
        ...

    async def ask_state(self, ask_id: str, wait: float = 0.0) -> AskState:
        """Where a program's request is, after waiting up to `wait` s (at most a minute) for its end;
        NotFound for an id that is not a program's request."""
        ...

    async def withdraw_ask(self, ask_id: str) -> AskState:
        """The program stopped waiting: its request is cancelled if it still waits."""
        ...

    # -- approval rules ------------------------------------------------------------------------
    async def approval_rules(self) -> list[ApprovalRule]: ...

    async def earlier_version_rules(self) -> set[str]:
        """The ids of the rules made for an earlier version of their step: they allow nothing now."""
        ...

    async def revoke_approval_rule(self, rule_id: str) -> ApprovalRule:
        """Take a rule back: what it allowed asks again. A rule is made only by answering an approval
        (where the person sees what the tool does), never set from outside. LookupError if unknown."""
        ...

    # -- schedules (run only while the app is open) ---------------------------------------------
    async def list_schedules(self) -> list[Schedule]: ...

    async def create_schedule(self, sequence: Any, args: Any = None, every: Any = None, cron: Any = None) -> Schedule:
        """A saved sequence with fixed args, `every` ("15m") or by `cron`; ScheduleInvalid naming each
        field at fault (nothing is stored then)."""
        ...

    async def pause_schedule(self, schedule_id: str, paused: bool = True) -> Schedule: ...

    async def delete_schedule(self, schedule_id: str) -> bool: ...

    # -- events --------------------------------------------------------------------------------
    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """`listener` hears every event from now on (over the HTTP API: from the moment the app's event
        stream is open, a moment after this returns), on this loop; call the result to stop."""
        ...

    # -- the rest ------------------------------------------------------------------------------
    async def close(self) -> None: ...
