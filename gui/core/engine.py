"""The operations of SPEC §1 in one place: list, create, run, call, when_call, delete, help,
plus the interaction operations. The GUI, the CLI, the HTTP API and MCP all call these.

`Engine` is wired from ports (stores, registry); `gui/app.py` builds it with TinyDB stores, tests
build it with the in-memory ones.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from gui.core.catalog import Catalog, MemorySequenceStore, NotFoundError, SequenceStore, summary
from gui.core.conditions import ConditionEvalError, ConditionSyntaxError, evaluate, parse_condition
from gui.core.events import EventBus
from gui.core.help import help_text
from gui.core.interaction_service import InteractionService
from gui.core.interactions import InteractionStore
from gui.core.memory import MemoryApprovalModes, MemoryInteractionStore
from gui.core.model import Sequence
from gui.core.records import MemoryRunStore, RunRecord, RunStore
from gui.core.registry import Registry
from gui.core.run_args import RunArgsError
from gui.core.runner import Runner
from gui.core.validator import ValidationResult


class WhenCallError(ValueError):
    """The condition of a `when_call` does not parse or cannot be evaluated."""


@dataclass
class Engine:
    registry: Registry
    sequences: SequenceStore = field(default_factory=MemorySequenceStore)
    runs: RunStore = field(default_factory=MemoryRunStore)
    interaction_store: InteractionStore = field(default_factory=MemoryInteractionStore)
    modes: Any = field(default_factory=MemoryApprovalModes)
    bus: EventBus = field(default_factory=EventBus)
    retry_backoff: float = 0.2
    # Awaited before a run starts: lets tools that are still arriving (MCP servers connecting at
    # start-up) be there, so a run started right away does not find them missing. Bounded by its owner.
    tools_ready: Callable[[], Awaitable[Any]] | None = None

    def __post_init__(self) -> None:
        self.catalog = Catalog(self.sequences, self.registry, self.bus)
        self.interactions = InteractionService(self.interaction_store, self.bus, modes=self.modes)
        self.runner = Runner(self.registry, self.interactions, self.runs, self.bus, self.catalog.resolve,
                             retry_backoff=self.retry_backoff)
        self._on_close: list[Callable[[], Awaitable[None]]] = []

    # -- sequences -----------------------------------------------------------------------------
    async def list(self) -> list[dict[str, Any]]:
        return [summary(s) for s in await self.catalog.list()]

    async def check(self, doc: Any) -> ValidationResult:
        return await self.catalog.check(doc)

    async def create(self, doc: Any) -> tuple[Sequence, ValidationResult]:
        return await self.catalog.create(doc)

    async def create_from(self, name: str | None = None, description: str = "", groups: Any = None,
                          file: str | None = None) -> tuple[Sequence, ValidationResult]:
        return await self.catalog.create_from(name, description, groups, file)

    async def get(self, name: str) -> Sequence | None:
        return await self.catalog.get(name)

    async def delete(self, name: str) -> bool:
        return await self.catalog.delete(name)

    def help(self) -> str:
        return help_text()

    # -- runs ----------------------------------------------------------------------------------
    async def start(self, name: str, args: dict[str, Any] | None = None) -> RunRecord:
        """Start a saved sequence (or, by its name, a single group) and return at once."""
        await self._tools_ready()
        sequence, group = await self.catalog.resolve(name)
        return await self.runner.start(sequence, args or {}, group=group)

    async def run(self, name: str, args: dict[str, Any] | None = None) -> RunRecord:
        """Run a saved sequence by name to its end."""
        await self._tools_ready()
        sequence = await self.catalog.get(name)
        if sequence is None:
            raise NotFoundError(f"there is no saved sequence named '{name}'")
        return await self.runner.run(sequence, args or {})

    async def run_sequence(self, sequence: Sequence, args: dict[str, Any] | None = None) -> RunRecord:
        """Run a sequence that is not (necessarily) saved, e.g. a file given to `seqdesk run`."""
        await self._tools_ready()
        return await self.runner.run(sequence, args or {})

    async def call(self, name: str, args: dict[str, Any] | None = None) -> RunRecord:
        """Call one group or one whole sequence by name, with args, to its end."""
        await self._tools_ready()
        sequence, group = await self.catalog.resolve(name)
        return await self.runner.run(sequence, args or {}, group=group)

    async def when_call(self, name: str, when: str, args: dict[str, Any] | None = None) -> RunRecord | None:
        """Call only when `when` (a condition over `args`) holds; None when it does not."""
        try:
            holds = evaluate(parse_condition(when), args or {})
        except (ConditionSyntaxError, ConditionEvalError) as exc:
            raise WhenCallError(f"condition `{when}`: {getattr(exc, 'message', exc)}") from None
        if not holds:
            return None
        return await self.call(name, args)

    async def _tools_ready(self) -> None:
        if self.tools_ready is not None:
            await self.tools_ready()

    async def stop(self, run_id: str) -> bool:
        return await self.runner.stop(run_id)

    async def get_run(self, run_id: str) -> RunRecord | None:
        live = self.runner.snapshot(run_id)
        return live if live is not None else await self.runs.get(run_id)

    async def list_runs(self, limit: int = 100, offset: int = 0) -> list[RunRecord]:
        return await self.runs.list(limit, offset)

    # -- lifecycle -----------------------------------------------------------------------------
    async def recover(self) -> list[str]:
        """At start-up: what a dead process left pending is cancelled, its runs interrupted."""
        run_ids = set(await self.interactions.recover())
        for record in await self.runs.running():
            run_ids.add(record.run_id)
        for run_id in run_ids:
            record = await self.runs.get(run_id)
            if record is None or record.finished:
                continue
            record.status = "interrupted"
            record.error = "the app stopped while this run was going on"
            for group in record.groups:
                if group.status == "running":
                    group.status, group.reason = "failed", "interrupted: the app stopped"
                for tool in group.tools:
                    if tool.status in ("running", "waiting", "queued") and group.status != "waiting":
                        tool.status, tool.error = "cancelled", "interrupted: the app stopped"
            record.finished_at = record.finished_at or record.created_at
            await self.runs.save(record)
            self.bus.publish("run.finished", run_id, sequence=record.sequence, status="interrupted",
                             error=record.error, outputs=record.outputs)
        return sorted(run_ids)

    async def close(self) -> None:
        """Closing the app: runs are stopped and every pending request ends as `session_disposed`."""
        await self.runner.stop_all("session_disposed")
        await self.interactions.cancel_all("session_disposed")
        for hook in self._on_close:
            await hook()


__all__ = ["Engine", "NotFoundError", "RunArgsError", "WhenCallError"]
