"""Approval modes and rules in PostgreSQL, behind the core's `ApprovalModes` port.

The core reads a tool's mode on the event loop for every approval, so reads answer from what this
process holds (read at open); a change applies here at once and returns the write as an awaitable,
which completes once the database has it (`InteractionService.respond` awaits it before an "always
allow" is acknowledged). Writes go to the database in the order they were made. Adding a rule is a
conditional insert: a rule id is stored once, whoever adds it first. A change made in another process
reaches this one (`RULES`), which reads them again.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable

from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool
from pydantic import ValidationError

from gui.core.asks import APPROVAL_MODES, ApprovalMode, ApprovalRule, check_mode
from gui.pgstore.pool import connected

log = logging.getLogger(__name__)

# Every process hears of a change another made (as `gui.pgstore.notices`: the writer's connections' name
# first), written with it, and reads the modes and rules again (`reload`).
RULES = "seqdesk_approval_rules"
NOTICE = "SELECT pg_notify(%s, current_setting('application_name') || ' changed')"


class PgApprovalModes:
    def __init__(self, pool: AsyncConnectionPool, modes: dict[str, ApprovalMode], rules: list[ApprovalRule]) -> None:
        self._pool = pool
        self._lock = threading.Lock()
        self._modes = modes
        self._rules = {rule.rule_id: rule for rule in rules}
        self._last: asyncio.Future[None] | None = None

    @classmethod
    async def open(cls, pool: AsyncConnectionPool) -> PgApprovalModes:
        return cls(pool, *await _read(pool))

    async def reload(self) -> None:
        """Read the modes and rules again: another of the team's processes changed them (`RULES`). This
        process's own changes still on their way are written first, and kept."""
        while True:
            last = self._last
            await self.settle()
            modes, rules = await _read(self._pool)
            with self._lock:
                if self._last is last:  # nothing changed here meanwhile: the database has it all
                    self._modes, self._rules = modes, {rule.rule_id: rule for rule in rules}
                    return

    def get(self, tool_name: str) -> ApprovalMode:
        with self._lock:
            return self._modes.get(tool_name, "ask")

    def all(self) -> dict[str, ApprovalMode]:
        with self._lock:
            return dict(self._modes)

    def rules(self) -> list[ApprovalRule]:
        with self._lock:
            return list(self._rules.values())

    def set(self, tool_name: str, mode: ApprovalMode) -> Awaitable[None]:
        checked = check_mode(mode)
        with self._lock:
            if checked == "ask":
                self._modes.pop(tool_name, None)
                return self._write("DELETE FROM approval_modes WHERE tool_name = %s", (tool_name,))
            self._modes[tool_name] = checked
            return self._write("INSERT INTO approval_modes (tool_name, mode) VALUES (%s, %s) ON CONFLICT (tool_name) "
                               "DO UPDATE SET mode = EXCLUDED.mode", (tool_name, checked))

    def add_rule(self, rule: ApprovalRule) -> Awaitable[None]:
        with self._lock:
            self._rules[rule.rule_id] = rule
            return self._write("INSERT INTO approval_rules (rule_id, doc) VALUES (%s, %s) "
                               "ON CONFLICT (rule_id) DO NOTHING",
                               (rule.rule_id, Jsonb(rule.model_dump_json(), dumps=str)))

    def remove_rule(self, rule_id: str) -> Awaitable[None]:
        with self._lock:
            self._rules.pop(rule_id, None)
            return self._write("DELETE FROM approval_rules WHERE rule_id = %s", (rule_id,))

    def _write(self, sql: str, params: tuple[object, ...]) -> asyncio.Future[None]:
        """Queue one statement after the ones before it (the caller holds the lock)."""
        before = self._last

        async def write() -> None:
            if before is not None:
                await asyncio.gather(before, return_exceptions=True)  # order only: its failure is its own
            async with connected(self._pool) as conn, conn.transaction():
                await conn.execute(sql, params)
                await conn.execute(NOTICE, (RULES,))

        task = asyncio.ensure_future(write())
        task.add_done_callback(_report)
        self._last = task
        return task

    async def settle(self) -> None:
        """Wait for every queued write (closing)."""
        if self._last is not None:
            await asyncio.gather(self._last, return_exceptions=True)


async def _read(pool: AsyncConnectionPool) -> tuple[dict[str, ApprovalMode], list[ApprovalRule]]:
    async with connected(pool) as conn:
        mode_rows = await (await conn.execute("SELECT tool_name, mode FROM approval_modes")).fetchall()
        rule_rows = await (await conn.execute("SELECT doc::text FROM approval_rules ORDER BY position")).fetchall()
    modes = {name: mode for name, mode in mode_rows if mode in APPROVAL_MODES and mode != "ask"}
    rules = []
    for (text,) in rule_rows:
        try:
            rules.append(ApprovalRule.model_validate_json(text))
        except ValidationError:
            log.warning("a stored approval rule that cannot be read is left out: %r", text)
    return modes, rules


def _report(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("could not save approval modes: %s", task.exception())

