"""Moving a SeqDesk's things between stores: `seqdesk data export SOURCE FILE` and `seqdesk data import
FILE TARGET`, where SOURCE and TARGET are a data folder (TinyDB) or a `postgresql://` database.

What moves: saved sequences, approval modes and rules, schedules, MCP server settings (their header
values, which the target keeps in its own secret store), and history (every run and request). The
file is JSON lines: a head with the counts, then one document a line. An import into a store that
already holds any of these refuses unless told to merge; after an import the target is read back
and compared document by document with the file (`Moved.differences`: none when all arrived).
Part of the composition root: it opens the stores, which the commands (`gui.cli`) may not.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gui.core.asks import ApprovalRule, InteractionRecord
from gui.core.errors import Conflict, Invalid, Unavailable
from gui.core.runs import RunRecord, Schedule
from gui.core.sequences import Sequence
from gui.mcp.config import McpServerConfig, McpSettingsStore
from gui.runtime import EngineStores

FORMAT = 1
PAGE = 500


class NotEmpty(Conflict):
    """The target already holds things: importing would mix two SeqDesks (`--merge` says to)."""

    code = "target-not-empty"


class BadExport(Invalid):
    """The file is not a SeqDesk export (or a line of it cannot be read)."""

    code = "bad-export"


class CannotWrite(Unavailable):
    """The export file cannot be written there."""

    code = "cannot-write"


@dataclass
class Moved:
    counts: dict[str, int]
    differences: list[str] = field(default_factory=list)  # what the target holds otherwise than the file


@dataclass
class Opened:
    stores: EngineStores
    mcp: McpSettingsStore


@asynccontextmanager
async def opened(where: str) -> AsyncIterator[Opened]:
    """The stores of a data folder or a database, closed after."""
    if where.startswith(("postgresql://", "postgres://")):
        from gui.pgstore import open_pg_stores

        database = await open_pg_stores(where)
        try:
            yield Opened(database, database.mcp_settings)
        finally:
            await database.close()
        return
    from gui.mcp import JsonMcpSettings
    from gui.store import open_stores

    folder = await open_stores(Path(where))
    try:
        yield Opened(folder, JsonMcpSettings.in_folder(folder.folder))
    finally:
        folder.close()


async def documents(place: Opened) -> dict[str, dict[str, Any]]:
    """Every document the place holds, by "kind/id", as JSON values."""
    found: dict[str, dict[str, Any]] = {}

    def keep(kind: str, ident: str, model: BaseModel) -> None:
        found[f"{kind}/{ident}"] = model.model_dump(mode="json", by_alias=True)

    stores = place.stores
    for sequence in await stores.sequences.list():
        keep("sequence", sequence.name, sequence)
    for rule in stores.modes.rules():
        keep("rule", rule.rule_id, rule)
    for tool, mode in stores.modes.all().items():
        found[f"mode/{tool}"] = {"tool": tool, "mode": mode}
    for schedule in await stores.schedules.list():
        keep("schedule", schedule.schedule_id, schedule)
    for server in await place.mcp.list():
        found[f"mcp_server/{server.name}"] = {**server.model_dump(mode="json"), "headers": server.header_values()}
    offset = 0
    while True:
        page = await stores.runs.query(limit=PAGE, offset=offset)
        for run in page.items:
            keep("run", run.run_id, run)
        offset += PAGE
        if offset >= page.total:
            break
    for record in await stores.interactions.list():
        keep("interaction", record.interaction_id, record)
    return found


def counts_of(docs: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for key in docs:
        kind = key.split("/", 1)[0]
        counts[kind] = counts.get(kind, 0) + 1
    return counts


async def export(source: str, file: Path) -> Moved:
    async with opened(source) as place:
        docs = await documents(place)
    counts = counts_of(docs)
    try:
        with open(file, "w", encoding="utf-8") as out:
            out.write(json.dumps({"seqdesk_export": FORMAT, "counts": counts}) + "\n")
            for key, doc in docs.items():
                out.write(json.dumps({"key": key, "doc": doc}, ensure_ascii=True) + "\n")
    except OSError as exc:
        raise CannotWrite(f"cannot write {file}: {exc.strerror or exc}") from None
    return Moved(counts)


def read_export(file: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    try:
        lines = open(file, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise BadExport(f"cannot read {file}: {exc.strerror or exc}") from None
    with lines:
        head = lines.readline()
        try:
            ok = json.loads(head).get("seqdesk_export") == FORMAT
        except (ValueError, AttributeError):
            ok = False
        if not ok:
            raise BadExport(f"{file} is not a SeqDesk export (its first line should name the format)")
        for number, line in enumerate(lines, start=2):
            try:
                item = json.loads(line)
                yield str(item["key"]), dict(item["doc"])
            except (ValueError, KeyError, TypeError) as exc:
                raise BadExport(f"{file}, line {number}: not a document of an export ({exc})") from None


async def import_(file: Path, target: str, *, merge: bool = False) -> Moved:
    docs = dict(read_export(file))
    async with opened(target) as place:
        if not merge:
            held = await documents(place)
            if held:
                raise NotEmpty(f"{target} already holds {len(held)} things ({_said(counts_of(held))}): import into an "
                               "empty one, or add --merge to add these to them")
        await _write(place, docs)
        differences = _compare(docs, await documents(place))
    return Moved(counts_of(docs), differences)


async def _write(place: Opened, docs: dict[str, dict[str, Any]]) -> None:
    stores, runs, interactions = place.stores, [], []
    for key, doc in docs.items():
        kind = key.split("/", 1)[0]
        if kind == "mode":
            await stores.modes.set(doc["tool"], doc["mode"])
        elif kind == "sequence":
            await stores.sequences.save(Sequence.model_validate(doc))
        elif kind == "rule":
            await stores.modes.add_rule(ApprovalRule.model_validate(doc))
        elif kind == "schedule":
            await stores.schedules.save(Schedule.model_validate(doc))
        elif kind == "mcp_server":
            await place.mcp.save(McpServerConfig.model_validate(doc))
        elif kind == "run":
            runs.append(RunRecord.model_validate(doc))
        elif kind == "interaction":
            interactions.append(InteractionRecord.model_validate(doc))
        else:
            raise BadExport(f"an export names a kind of document SeqDesk does not know: {kind!r}")
    await stores.runs.save_many(runs)
    await stores.interactions.save_many(interactions)


def _compare(wanted: dict[str, Any], held: dict[str, Any]) -> list[str]:
    return [f"{key}: {'missing' if key not in held else 'differs'}" for key, doc in wanted.items()
            if held.get(key) != doc]


def _said(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
