"""Run records in PostgreSQL, behind the core's `RunStore` port.

Each run is one row: its record as a document, and the fields queries filter and sort on
(`run_fields`) as indexed columns, so a page of 50 is an index scan whatever the history holds.
Each running run has a lease (`holder`, `heartbeat`: migrations/0004) that its process renews;
`take_over_expired` finds those whose process is gone.

**Fencing** (migrations/0007): each run has an `epoch`, 1 when its process first saves it, one more
at every takeover. A process writes a run it holds only while the stored epoch is the one it holds:
a process that stopped renewing its lease (a pause, a lost network) but still lives cannot
overwrite a run another process has since taken over (marked interrupted); its write changes nothing
and raises `LeaseLost`, and its runner stops its copy of the run. A process that does not hold a
run may change it only once it has finished (a resume names its next attempt; the agent left).

Resuming is a conditional write: the old run's `resumed_by` is set once, and a second process that
resumes it too loses with `WriteConflict` and changes nothing.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from psycopg_pool import AsyncConnectionPool

from gui.core.causes import EndCause, as_cause
from gui.core.queries import DEFAULT_LIMIT, Page, StoredText, check_window
from gui.core.runs import LeaseLost, RunRecord, RunStatus, run_fields
from gui.pgstore.documents import TEXT, columns, columns_of, load_all, page_by_values_query, page_query
from gui.pgstore.errors import WriteConflict
from gui.pgstore.pool import connected
from gui.pgstore.tallies import counted, tally, values_like

BY_NAME = 64  # a text naming at most this many sequences is searched sequence by sequence
COLUMNS = "run_id, status, sequence, created_at, finished, resumed_by, doc, raw, holder, heartbeat"
# A run saved for the first time: held by this process (its lease, epoch 1) while it runs.
INSERT = f"""
INSERT INTO runs ({COLUMNS}, epoch) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, now(), 1)
ON CONFLICT (run_id) DO NOTHING RETURNING epoch
"""
# The resumed_by a write may find: none yet, its own, or (to take back a resume whose new attempt
# was never saved) one naming a run that does not exist.
RESUMED_FITS = """(runs.resumed_by IS NULL OR runs.resumed_by = {given}
    OR ({given} IS NULL AND NOT EXISTS (SELECT 1 FROM runs named WHERE named.run_id = runs.resumed_by)))"""
SET = """status = %(status)s, sequence = %(sequence)s, created_at = %(created_at)s, finished = %(finished)s,
    resumed_by = %(resumed_by)s, doc = %(doc)s, raw = %(raw)s"""
# A run this process holds, at the epoch it holds: its saves renew the lease.
SAVE_HELD = f"""
UPDATE runs SET {SET}, heartbeat = now()
WHERE run_id = %(run_id)s AND epoch = %(epoch)s AND {RESUMED_FITS.format(given="%(resumed_by)s::text")}
RETURNING 1
"""
# A run held by no one here: only once it has finished.
SAVE_FINISHED = f"""
UPDATE runs SET {SET}
WHERE run_id = %(run_id)s AND finished AND {RESUMED_FITS.format(given="%(resumed_by)s::text")}
RETURNING 1
"""
WHY_NOT = "SELECT epoch, finished, resumed_by FROM runs WHERE run_id = %s"
FIELDS = ("run_id", "status", "sequence", "created_at", "finished", "resumed_by", "doc", "raw")
# A batch in one statement each (held runs fenced as one by one; the rest as an import writes them,
# never over a running run another process holds):
# the tallies change once per statement, and the batch is written whole or not at all.
SAVE_MANY_HELD = f"""
UPDATE runs SET status = g.status, sequence = g.sequence, created_at = g.created_at, finished = g.finished,
    resumed_by = g.resumed_by, doc = g.doc, raw = g.raw, heartbeat = now()
FROM unnest(%s::text[], %s::text[], %s::text[], %s::float8[], %s::bool[], %s::text[], %s::jsonb[], %s::text[],
            %s::bigint[]) AS g(run_id, status, sequence, created_at, finished, resumed_by, doc, raw, epoch)
WHERE runs.run_id = g.run_id AND runs.epoch = g.epoch AND {RESUMED_FITS.format(given="g.resumed_by")}
RETURNING runs.run_id
"""
SAVE_MANY = f"""
INSERT INTO runs ({COLUMNS})
SELECT *, now() FROM unnest(%s::text[], %s::text[], %s::text[], %s::float8[], %s::bool[], %s::text[], %s::jsonb[],
                            %s::text[], %s::text[])
ON CONFLICT (run_id) DO UPDATE SET status = EXCLUDED.status, sequence = EXCLUDED.sequence,
    created_at = EXCLUDED.created_at, finished = EXCLUDED.finished, resumed_by = EXCLUDED.resumed_by,
    doc = EXCLUDED.doc, raw = EXCLUDED.raw
WHERE (runs.resumed_by IS NULL OR runs.resumed_by = EXCLUDED.resumed_by)
    AND (runs.finished OR runs.holder = EXCLUDED.holder)
"""
# The leases of the runs this process holds (id, epoch): never those a previous process of its name
# left, which it did not take up again (`claim`): they expire, and are taken over.
RENEW = """
UPDATE runs SET heartbeat = now() FROM unnest(%s::text[], %s::bigint[]) AS h(run_id, epoch)
WHERE runs.run_id = h.run_id AND runs.epoch = h.epoch AND runs.holder = %s AND NOT runs.finished
"""
# A running run this process's name holds (a previous process of that name, gone, left it): held by
# this one now, at a new epoch.
CLAIM = """
UPDATE runs SET heartbeat = now(), epoch = epoch + 1 WHERE run_id = %s AND holder = %s AND NOT finished
RETURNING epoch
"""
# Of the runs this process holds (id, epoch), those another process has taken over since.
LOST = """
SELECT h.run_id FROM unnest(%s::text[], %s::bigint[]) AS h(run_id, epoch) LEFT JOIN runs r ON r.run_id = h.run_id
WHERE r.run_id IS NULL OR r.epoch <> h.epoch
"""
# Runs whose lease expired (or that never had one), taken over by this process: one taker each, and
# a new epoch, which fences out the process that held it.
TAKE_OVER = f"""
WITH expired AS (
    SELECT run_id FROM runs
    WHERE NOT finished AND coalesce(heartbeat, '-infinity') < now() - make_interval(secs => %s)
    FOR UPDATE SKIP LOCKED)
UPDATE runs SET holder = %s, heartbeat = now(), epoch = runs.epoch + 1 FROM expired
WHERE runs.run_id = expired.run_id
RETURNING runs.epoch, {TEXT}, runs.stop_request->>'cause', runs.stop_request->>'by', runs.stop_request IS NOT NULL
"""


@dataclass(frozen=True)
class TakenOver:
    """A run whose process is gone, now held here to be ended; `stop`: the Stop claimed for it before
    (its cause, and where it was pressed), which its process did not live to carry out."""

    record: RunRecord
    stop: tuple[EndCause, str | None] | None


def like_escaped(text: str) -> str:
    """`text` matched as it is by LIKE (its `%`, `_` and `\\` are no wildcards)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def row(record: RunRecord, holder: str) -> tuple[Any, ...]:
    fields = run_fields(record)
    doc, raw = columns(record)
    return (record.run_id, fields["status"], fields["sequence"], float(fields["created_at"]), record.finished,
            record.resumed_by, doc, raw, holder)


class PgRunStore:
    """`holder`: the name of this process's connections, which holds the leases of the runs it starts.
    `held`: the epoch of each running run this process holds (started, or took over)."""

    def __init__(self, pool: AsyncConnectionPool, holder: str) -> None:
        self._pool, self.holder = pool, holder
        self.held: dict[str, int] = {}

    async def renew_leases(self) -> None:
        held = dict(self.held)
        if not held:
            return
        async with connected(self._pool) as conn:
            await conn.execute(RENEW, (list(held), list(held.values()), self.holder))

    async def claim(self, run_id: str) -> bool:
        """Hold again a running run held under this process's name (`holder`): one a previous process
        of that name left going on when it stopped, which no other process has taken over since (its
        lease expired: `take_over_expired`). False, changing nothing, for any other run. Only one live
        process bears a name (`gui.pgstore.names`), so this takes nothing from a process that runs."""
        if run_id in self.held:
            return True
        async with connected(self._pool) as conn:
            found = await (await conn.execute(CLAIM, (run_id, self.holder))).fetchone()
        if found is None:
            return False
        self.held[run_id] = int(found[0])
        return True

    async def lost_leases(self) -> builtins.list[str]:
        """The runs this process holds that another process has taken over since (it stops them)."""
        held = dict(self.held)
        if not held:
            return []
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(LOST, (list(held), list(held.values())))).fetchall()
        return [r[0] for r in rows]

    async def take_over_expired(self, lease: float) -> builtins.list[TakenOver]:
        """The running runs whose lease is older than `lease` seconds, now held by this process (which
        ends them), each with the Stop claimed for it, if one was: each is taken by one process only."""
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(TAKE_OVER, (lease, self.holder))).fetchall()
        taken = []
        for epoch, text, cause, by, stop_claimed in rows:
            for record in load_all(RunRecord, [text]):
                self.held[record.run_id] = int(epoch)
                taken.append(TakenOver(record, (as_cause(cause) or "person", by) if stop_claimed else None))
        return taken

    async def save(self, record: RunRecord) -> None:
        """The record as it is when called: the runner goes on changing it while this waits on the
        database (a checkpoint's save still under way when the run ends), so whether the run is held
        on afterwards is decided by the row written, never by the record as it is by then."""
        run_id = record.run_id
        written = row(record, self.holder)
        values = dict(zip(FIELDS, written, strict=False))
        finished = bool(values["finished"])
        epoch = self.held.get(run_id)
        async with connected(self._pool) as conn:
            if epoch is not None:
                saved = await (await conn.execute(SAVE_HELD, {**values, "epoch": epoch})).fetchone()
            else:
                inserted = await (await conn.execute(INSERT, written)).fetchone()
                if inserted is not None:
                    if not finished:
                        self.held[run_id] = int(inserted[0])
                    return
                saved = await (await conn.execute(SAVE_FINISHED, values)).fetchone()
            if saved is not None:
                if finished:
                    self.held.pop(run_id, None)  # nothing fences a finished run: no need to remember it
                return
            stored = await (await conn.execute(WHY_NOT, (run_id,))).fetchone()
        if epoch is not None and (stored is None or int(stored[0]) != epoch):  # kept: its next write is refused too
            raise LeaseLost(f"run {run_id} was taken over by another SeqDesk process (this one had stopped "
                            "renewing its lease): this change was not kept", [run_id])
        if stored is not None and not stored[1] and epoch is None:
            raise WriteConflict(f"run {run_id} is run by another SeqDesk process: only that process changes it "
                                "until it ends; this change was not kept")
        raise WriteConflict(f"run {run_id} was resumed already, by another SeqDesk process: "
                            "this change was not kept")

    async def save_many(self, records: Iterable[RunRecord]) -> None:
        """`save` of each (as each is when called: see `save`), in one transaction."""
        latest = {r.run_id: r for r in records}
        held = [(row(r, self.holder), self.held[r.run_id]) for r in latest.values() if r.run_id in self.held]
        rest = [row(r, self.holder) for r in latest.values() if r.run_id not in self.held]
        lost: builtins.list[str] = []
        async with connected(self._pool) as conn, conn.transaction():
            if held:
                arrays = columns_of((*written[:-1], epoch) for written, epoch in held)
                saved = {r[0] for r in await (await conn.execute(SAVE_MANY_HELD, arrays)).fetchall()}
                lost = [written[0] for written, _ in held if written[0] not in saved]
            if rest:
                await conn.execute(SAVE_MANY, columns_of(rest))
        for written, _ in held:
            run_id, finished = written[0], written[FIELDS.index("finished")]
            if finished and run_id not in lost:  # finished as written, not as the record may be by now
                self.held.pop(run_id, None)
        if lost:
            raise LeaseLost(f"{len(lost)} run(s) were taken over by another SeqDesk process: their changes "
                            f"were not kept ({', '.join(lost)})", lost)

    async def get(self, run_id: str) -> RunRecord | None:
        async with connected(self._pool) as conn:
            found = await (await conn.execute(f"SELECT {TEXT} FROM runs WHERE run_id = %s", (run_id,))).fetchone()
        items = load_all(RunRecord, [found[0]]) if found else []
        return items[0] if items else None

    async def list(self, limit: int = 100, offset: int = 0) -> builtins.list[RunRecord]:
        return (await self.query(limit=limit, offset=offset)).items

    async def running(self) -> builtins.list[RunRecord]:
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(f"SELECT {TEXT} FROM runs WHERE NOT finished")).fetchall()
        return load_all(RunRecord, (r[0] for r in rows))

    async def count(self) -> int:
        async with connected(self._pool) as conn:
            return await tally(conn, "runs")

    async def ids_starting(self, prefix: str, limit: int) -> builtins.list[str]:
        pattern = like_escaped(prefix) + "%"
        async with connected(self._pool) as conn:
            rows = await (await conn.execute(
                "SELECT run_id FROM runs WHERE run_id LIKE %s ORDER BY run_id LIMIT %s", (pattern, limit))).fetchall()
        return [r[0] for r in rows]

    async def query(
        self,
        *,
        status: RunStatus | None = None,
        sequence: str | None = None,
        started_from: float | None = None,
        started_to: float | None = None,
        text: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[RunRecord]:
        check_window(limit, offset)
        where: list[str] = ["TRUE"]
        params: list[Any] = []
        for clause, value in (("status = %s", status), ("sequence = %s", sequence),
                              ("created_at >= %s", started_from), ("created_at < %s", started_to)):
            if value is not None:
                where.append(clause)
                params.append(value)
        others = list(params)
        pattern = "%" + like_escaped(text) + "%" if text else ""
        if text:
            where.append("lower(sequence) LIKE lower(%s)")  # found by the trigram index
            params.append(pattern)
        condition = " AND ".join(where)
        async with connected(self._pool) as conn:
            names = await values_like(conn, "runs", "sequence", pattern) if text else {}
            if text and len(names) <= BY_NAME:  # the few sequences the text names, each walked newest first
                page = page_by_values_query("runs", "run_id", "sequence", " AND ".join(where[:-1]))
                rows = await (await conn.execute(page, (sorted(names), *others, limit + offset, limit, offset))
                              ).fetchall()
            else:
                rows = await (await conn.execute(page_query("runs", "run_id", condition),
                                                 (*params, limit, offset))).fetchall()
            if text and not (status or sequence or started_from is not None or started_to is not None):
                total = sum(names.values())  # by name: the tallies of the sequences it names
            elif text or started_from is not None or started_to is not None or (status and sequence):
                total = await counted(conn, "runs", condition, params)
            elif status or sequence:
                total = await tally(conn, "runs", "status" if status else "sequence", status or sequence or "")
            else:
                total = await tally(conn, "runs")
        return Page(load_all(RunRecord, (r[0] for r in rows)), total)

    async def query_texts(
        self,
        *,
        status: RunStatus | None = None,
        sequence: str | None = None,
        started_from: float | None = None,
        started_to: float | None = None,
        text: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> Page[RunRecord | StoredText]:
        """`query`: this store vouches for no text, each record is given as it is read."""
        page = await self.query(status=status, sequence=sequence, started_from=started_from,
                                started_to=started_to, text=text, limit=limit, offset=offset)
        return Page(list[RunRecord | StoredText](page.items), page.total)
