"""`seqdesk data export SOURCE FILE` and `seqdesk data import FILE TARGET`: a SeqDesk's things moved
between places (`gui.moving.places`: what moves), a data folder or a database, either way.

The file is JSON lines: a head (the format, the counts, how secrets travel), then one document a
line, its secret parts sealed beside it (`gui.moving.sealing`), never in clear. An import into a
place that already holds any of these refuses unless told to merge (a database whose only things are
its people, the first admin added before the import, is empty to a file that moves no people); after
an import the target is read back and compared document by document with the file
(`Moved.differences`: none when all arrived), and what the target cannot hold is said (`left_out`).

The record of decisions moves only whole and unbroken: an export of one whose chain does not verify
refuses (`BrokenRecord`, naming the first entry that does not fit), an import checks the file's chain
before writing anything (`BadExport`), and after it verifies the target's own record (`Moved.record`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui.core.asks import AuditEntry, Verdict, verify
from gui.moving.errors import BadExport, BrokenRecord, CannotWrite, NotEmpty
from gui.moving.places import documents, opened, write
from gui.moving.sealing import LEFT_OUT, NONE, SEALED, Seal, join, secret_parts, split

FORMAT = 3
READ_FORMATS = (1, 2, 3)  # 1: before secrets were sealed (its header values in clear, as it was written);
# 2: before the record of decisions and the MCP servers' Client secrets moved


@dataclass
class Moved:
    counts: dict[str, int]
    differences: list[str] = field(default_factory=list)  # what the target holds otherwise than the file
    left_out: list[str] = field(default_factory=list)  # what the target cannot hold (people, in a folder)
    secrets: str = NONE  # how the file carries secrets: SEALED, LEFT_OUT or NONE
    record: Verdict | None = None  # after an import: the target's record of decisions, verified


def counts_of(docs: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for key in docs:
        kind = key.split("/", 1)[0]
        counts[kind] = counts.get(kind, 0) + 1
    return counts


async def export(source: str, file: Path, *, with_secrets: bool = True, key: str | None = None) -> Moved:
    """Write everything `source` holds to `file`; its secrets sealed with `key` (default
    `SEQDESK_SECRET_KEY`), or left out (`with_secrets=False`). CannotSeal when there are secrets and
    no key, before anything is written."""
    async with opened(source) as place:
        verdict = verify(await place.audit.documents(), await place.audit.head())
        if not verdict.ok:
            raise BrokenRecord(f"the record of decisions of {_named(source)} does not verify ({verdict.sentence()}): "
                               "an export moves it only unbroken, so that it proves what it says where it arrives; "
                               "`seqdesk audit verify` names the entry. Nothing was written")
        docs = await documents(place)
    seal = Seal(key)
    lines, carried = [], NONE
    for key_, doc in docs.items():
        plain, parts = split(key_.split("/", 1)[0], doc)
        item: dict[str, Any] = {"key": key_, "doc": plain}
        if parts and with_secrets:
            item["sealed"] = seal.close(parts, _named(source))
            carried = SEALED
        elif parts:
            carried = LEFT_OUT
        lines.append(json.dumps(item, ensure_ascii=True))
    counts = counts_of(docs)
    try:
        with open(file, "w", encoding="utf-8") as out:
            out.write(json.dumps({"seqdesk_export": FORMAT, "counts": counts, "secrets": carried}) + "\n")
            for line in lines:
                out.write(line + "\n")
    except OSError as exc:
        raise CannotWrite(f"cannot write {file}: {exc.strerror or exc}") from None
    return Moved(counts, secrets=carried)


def read_export(file: Path, key: str | None = None) -> tuple[str, Iterator[tuple[str, dict[str, Any]]]]:
    """(how the file carries secrets, its documents with their secrets unsealed)."""
    try:
        lines = open(file, encoding="utf-8")  # noqa: SIM115 - closed by the reading below
    except OSError as exc:
        raise BadExport(f"cannot read {file}: {exc.strerror or exc}") from None
    head = lines.readline()
    try:
        said = json.loads(head)
        ok = said.get("seqdesk_export") in READ_FORMATS
    except (ValueError, AttributeError):
        ok = False
    if not ok:
        lines.close()
        raise BadExport(f"{file} is not a SeqDesk export (its first line should name the format)")
    carried = str(said.get("secrets", NONE))

    def read() -> Iterator[tuple[str, dict[str, Any]]]:
        seal = Seal(key)
        with lines:
            for number, line in enumerate(lines, start=2):
                try:
                    item = json.loads(line)
                    doc = dict(item["doc"])
                    if "sealed" in item:
                        doc = join(doc, seal.open(str(item["sealed"]), f"{file}, line {number}"))
                    yield str(item["key"]), doc
                except (ValueError, KeyError, TypeError) as exc:
                    raise BadExport(f"{file}, line {number}: not a document of an export ({exc})") from None

    return carried, read()


async def import_(file: Path, target: str, *, merge: bool = False, key: str | None = None) -> Moved:
    carried, reading = read_export(file, key)
    docs = dict(reading)
    _check_record(file, docs)
    moves_people = any(name.startswith("person/") for name in docs)
    async with opened(target) as place:
        if not merge:
            held = {name: doc for name, doc in (await documents(place)).items()
                    if moves_people or not name.startswith("person/")}
            if held:
                raise NotEmpty(f"{target} already holds {len(held)} things ({_said(counts_of(held))}): import into an "
                               "empty one, or add --merge to add these to them")
        left_out = await write(place, docs)
        differences = _compare({k: d for k, d in docs.items() if k not in left_out}, await documents(place),
                               without_secrets=carried == LEFT_OUT)
        record = verify(await place.audit.documents(), await place.audit.head())
    return Moved(counts_of(docs), differences, left_out, carried, record)


def _check_record(file: Path, docs: dict[str, Any]) -> None:
    """BadExport, before anything is written, when the file's record of decisions is not one whole
    unbroken chain of entries (keyed by their positions)."""
    record = sorted(((key, doc) for key, doc in docs.items() if key.startswith("audit/")),
                    key=lambda item: int(item[0][6:]) if item[0][6:].isdigit() else -1)
    for key, doc in record:
        try:
            entry = AuditEntry.model_validate(doc)
        except ValueError:
            raise BadExport(f"{file}: {key} is not an entry of a record of decisions: nothing was imported") from None
        if key != f"audit/{entry.position}":
            raise BadExport(f"{file}: {key} holds the entry at position {entry.position}: nothing was imported")
    verdict = verify(doc for _, doc in record)
    if not verdict.ok:
        raise BadExport(f"{file}: its record of decisions does not verify ({verdict.sentence()}): nothing was "
                        "imported")


def _named(where: str) -> str:
    return where if "://" not in where else "the database"


def _compare(wanted: dict[str, Any], held: dict[str, Any], *, without_secrets: bool) -> list[str]:
    def seen(key: str, doc: dict[str, Any] | None) -> Any:
        if doc is None or not without_secrets:
            return doc
        kind = key.split("/", 1)[0]
        return split(kind, doc)[0] if secret_parts(kind, doc) else doc

    return [f"{key}: {'missing' if key not in held else 'differs'}" for key, doc in wanted.items()
            if seen(key, held.get(key)) != seen(key, doc)]


def _said(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
