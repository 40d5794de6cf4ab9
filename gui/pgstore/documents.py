"""How a record is kept in a row: its JSON in `jsonb` when jsonb can hold it, else as JSON text.

jsonb refuses a NUL character and a lone surrogate in a string, both of which a tool's output may
carry; the record then goes to the `raw` text column instead, whole, and reads back the same.
Reading takes `coalesce(raw, doc::text)` and validates the text with pydantic's JSON parser.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from typing import Any, TypeVar

from psycopg.types.json import Jsonb
from pydantic import BaseModel, ValidationError

from gui.core.json_text import to_json_text

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
NOT_JSONB = re.compile(r"\\u0000|\\ud[89a-f][0-9a-f]{2}", re.IGNORECASE)
TEXT = "coalesce(raw, doc::text)"  # the stored record's JSON text, whichever column holds it


def page_query(table: str, key: str, condition: str) -> str:
    """One page (`LIMIT %s OFFSET %s`) of `table`'s records where `condition` holds, newest first: the
    rows walked from an index in the page's order, their `doc` and `raw` taken as they are, and only the
    page's rows turned into text, above the limit: the rows an offset skips are never turned into text
    (page 20 of 100,000 answered requests: 7.5 ms → 0.8 ms), and a page's records are read where the
    walk finds them, a few to a block, rather than looked up again by key (three index blocks more
    each, at 100,000 records: a page of 50 read 206 blocks, now 10)."""
    return (f"SELECT {TEXT} FROM (SELECT {key}, created_at, doc, raw FROM {table} WHERE {condition} "
            f"ORDER BY created_at DESC, {key} DESC LIMIT %s OFFSET %s) AS page "
            f"ORDER BY page.created_at DESC, page.{key} DESC")


def page_by_values_query(table: str, key: str, column: str, condition: str) -> str:
    """`page_query` for the rows whose `column` is one of a few values (`%s`, an array, first), each
    value's newest found on its own from the index on (`column`, created_at, `key`), at most `%s` (the
    page's end: limit + offset) each, then merged: a search by a text in a sequence's name, found
    first among the names, costs the page, not the history (a fortieth of it, at 100,000 runs)."""
    return (f"SELECT {TEXT} FROM (SELECT found.{key}, found.created_at, found.doc, found.raw "
            f"FROM unnest(%s::text[]) AS v(value) "
            f"CROSS JOIN LATERAL (SELECT {key}, created_at, doc, raw FROM {table} "
            f"WHERE {column} = v.value COLLATE \"C\" AND {condition} ORDER BY created_at DESC, {key} DESC LIMIT %s) "
            f"AS found ORDER BY found.created_at DESC, found.{key} DESC LIMIT %s OFFSET %s) AS page "
            f"ORDER BY page.created_at DESC, page.{key} DESC")


def columns(model: BaseModel) -> tuple[Jsonb | None, str | None]:
    """(`doc`, `raw`): one of them holds the record."""
    text = to_json_text(model)
    if NOT_JSONB.search(text):
        return None, text
    return Jsonb(text, dumps=_as_is), None


def _as_is(text: object) -> str:
    return str(text)


def load(model: type[M], text: str) -> M:
    try:
        return model.model_validate_json(text)
    except ValidationError:  # pydantic's JSON parser refuses a lone surrogate's escape: the slow way
        return model.model_validate(json.loads(text))


def load_all(model: type[M], texts: Iterable[str]) -> list[M]:
    """The records that fit `model`; one that does not (edited by hand, left by another version) is
    left out with a warning, as the TinyDB store does, rather than breaking a listing."""
    items = []
    for text in texts:
        try:
            items.append(load(model, text))
        except (ValidationError, ValueError) as exc:
            log.warning("a stored %s cannot be read and is left out: %s", model.__name__, str(exc)[:300])
    return items


def columns_of(rows: Iterable[tuple[Any, ...]]) -> list[list[Any]]:
    """Rows (the first item the id) as one list per column, the last row of an id kept: the arrays a
    batch is written from in one statement (`unnest`), as saving each in turn would leave it."""
    latest = {row[0]: row for row in rows}
    return [list(column) for column in zip(*latest.values(), strict=True)]
