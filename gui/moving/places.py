"""A place a SeqDesk keeps its things in, opened to move them: a data folder (TinyDB) or a team's
`postgresql://` database; every document it holds (`documents`), and documents written into it
(`write`).

What a place holds, by kind: saved sequences, approval modes and rules, schedules, MCP server
settings (with their header values and the Client secret of a sign-in client made for SeqDesk in the
server's console; its sign-in tokens and a registration SeqDesk made itself stay behind: they belong
to the place's own address, and a sign-in makes them again), history (every run and request), the
record of decisions (`audit`: each entry as stored, hashes and all, by its position, so the chain
verifies where it arrives as it did where it was; it goes into an empty record only, and is left out
of one that holds its own, which it cannot continue), the notification settings
(with their secret parts), the preferences a person chose (dark mode, language: each named object but
the notification settings, which are their own kind, and the paired phones, which pair with one
machine's address) and, on a database, the team's people (their roles, password hashes and personal
tokens; a data folder has none, so they are left out of an import into one, and said to be).
Part of the composition root: it opens the stores, which the commands (`gui.cli`) may not.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from gui.core.asks import ApprovalRule, AuditHead, InteractionRecord
from gui.core.people import PersonRecord, TokenRecord
from gui.core.runs import RunRecord, Schedule
from gui.core.sequences import Sequence
from gui.mcp.config import McpServerConfig, McpSettingsStore
from gui.mcp.oauth_client import client_secret, set_client_secret
from gui.moving.errors import BadExport
from gui.notify import NotifySettings, NotifySettingsStore, SettingsStore
from gui.pgstore import PgStores
from gui.prefs import Prefs, PrefsFile
from gui.runtime import EngineStores

PAGE = 500
FOLDER_PREFERENCES = ("preferences",)  # the named objects a data folder keeps (`Runtime.preferences`)
NOT_MOVED = ("notifications", "paired-phones")  # not preferences of their own kind (see above)
CLIENT_SECRET = "client_secret"  # an MCP server's Client secret, in its document (sealed in the file)


class Record(Protocol):
    """A place's record of decisions (`gui.store.audit`, `gui.pgstore.audit`), as moving reads and fills it."""

    async def documents(self) -> list[dict[str, Any] | None]: ...

    async def head(self) -> AuditHead | None: ...

    async def append_stored(self, documents: list[dict[str, Any]]) -> bool: ...


@dataclass
class Opened:
    stores: EngineStores
    mcp: McpSettingsStore
    notify: SettingsStore
    audit: Record
    folder: Path | None = None
    database: PgStores | None = None

    def preference_names(self) -> list[str]:
        if self.database is not None:
            return [name for name in self.database.preferences.names() if name not in NOT_MOVED]
        assert self.folder is not None
        return [name for name in FOLDER_PREFERENCES if (self.folder / f"{name}.json").exists()]

    def preferences(self, name: str) -> Prefs:
        if self.database is not None:
            return self.database.preferences.named(name)
        return PrefsFile(self.folder, name)


@asynccontextmanager
async def opened(where: str) -> AsyncIterator[Opened]:
    """The stores of a data folder or a database, closed after."""
    if where.startswith(("postgresql://", "postgres://")):
        from gui.pgstore import open_pg_stores

        database = await open_pg_stores(where)
        try:
            yield Opened(database, database.mcp_settings, database.notify_settings, database.audit,
                         database=database)
        finally:
            await database.close()
        return
    from gui.mcp import JsonMcpSettings
    from gui.store import open_stores
    from gui.store.audit import FileAuditLog

    folder = await open_stores(Path(where))
    try:
        audit = await FileAuditLog.open(folder.folder, folder.writer)
    except BaseException:
        folder.close()
        raise
    try:
        yield Opened(folder, JsonMcpSettings.in_folder(folder.folder), NotifySettingsStore(folder.folder), audit,
                     folder=folder.folder)
    finally:
        folder.close()  # its writer done first: the record's appends ran on it
        audit.close()


def notify_doc(settings: NotifySettings) -> dict[str, Any]:
    """The notification settings as a document, their SMTP password in it (it is moved sealed)."""
    doc = settings.model_dump(mode="json")
    if settings.smtp is not None and doc.get("smtp") is not None:
        doc["smtp"]["password"] = settings.smtp.password.get_secret_value() if settings.smtp.password else None
    return doc


async def documents(place: Opened) -> dict[str, dict[str, Any]]:
    """Every document the place holds, by "kind/id", as JSON values (secrets in clear: in memory only)."""
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
        secret = await asyncio.to_thread(client_secret, place.mcp.secrets, server.name)
        if secret is not None:
            found[f"mcp_server/{server.name}"][CLIENT_SECRET] = secret
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
    for position, entry in enumerate(await place.audit.documents(), start=1):
        if entry is not None:  # a line that is not an entry: the chain is broken there (`export` refuses it)
            found[f"audit/{position}"] = entry
    notify = place.notify.load()
    if notify != NotifySettings():
        found["notifications/settings"] = notify_doc(notify)
    for name in place.preference_names():
        chosen = place.preferences(name).read()
        if chosen:
            found[f"preferences/{name}"] = chosen
    if place.database is not None:
        people = place.database.people
        for person in await people.people():
            tokens = [asdict(token) for token in await people.tokens_of(person.person_id)]
            found[f"person/{person.name}"] = {**asdict(person), "roles": sorted(person.roles), "tokens": tokens}
    return found


async def write(place: Opened, docs: dict[str, dict[str, Any]]) -> list[str]:
    """Write the documents into the place; what it cannot hold, left out (as "kind/id")."""
    stores, runs, interactions, left_out = place.stores, [], [], []
    record: list[tuple[int, str, dict[str, Any]]] = []
    for key, doc in docs.items():
        kind, ident = key.split("/", 1)
        if kind == "mode":
            await stores.modes.set(doc["tool"], doc["mode"])
        elif kind == "sequence":
            await stores.sequences.save(Sequence.model_validate(doc))
        elif kind == "rule":
            await stores.modes.add_rule(ApprovalRule.model_validate(doc))
        elif kind == "schedule":
            await stores.schedules.save(Schedule.model_validate(doc))
        elif kind == "mcp_server":
            secret = doc.get(CLIENT_SECRET)
            config = McpServerConfig.model_validate({k: v for k, v in doc.items() if k != CLIENT_SECRET})
            await place.mcp.save(config)
            if secret is not None:
                await asyncio.to_thread(set_client_secret, place.mcp.secrets, config.name, secret)
        elif kind == "audit":
            record.append((int(ident), key, doc))
        elif kind == "run":
            runs.append(RunRecord.model_validate(doc))
        elif kind == "interaction":
            interactions.append(InteractionRecord.model_validate(doc))
        elif kind == "notifications":
            place.notify.save(NotifySettings.model_validate(doc))
        elif kind == "preferences":
            place.preferences(ident).replace(doc)
        elif kind == "person":
            if place.database is None:
                left_out.append(key)
            else:
                await _add_person(place.database, doc)
        else:
            raise BadExport(f"an export names a kind of document SeqDesk does not know: {kind!r}")
    await stores.runs.save_many(runs)
    await stores.interactions.save_many(interactions)
    record.sort(key=lambda item: item[0])
    if record and not await place.audit.append_stored([doc for _, _, doc in record]):
        left_out += [key for _, key, _ in record]  # the place keeps a record of its own, which these do not continue
    if place.database is not None and (runs or interactions):
        await place.database.tidy()
    return left_out


async def _add_person(database: PgStores, doc: dict[str, Any]) -> None:
    fields = {name: value for name, value in doc.items() if name != "tokens"}
    person = PersonRecord(**{**fields, "roles": frozenset(fields.get("roles", ()))})
    if await database.people.add_person(person):
        for token in doc.get("tokens", []):
            await database.people.add_token(TokenRecord(**token))
