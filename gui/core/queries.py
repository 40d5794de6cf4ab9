"""Paged queries over stored records: what a page is, and what "newest first" means.

The API and the pages ask for one page of runs or interactions ("pending approvals of run X, 50 at
a time") and how many there are in all. The stores answer in the store, the TinyDB ones from small
per-segment indexes, never by loading all of history. Every store orders and filters the same way:
newest first by `created_at`, ties broken by the larger id, on the fields that `run_fields` and
`interaction_fields` give (records.py, interactions.py), so the memory and TinyDB stores cannot
disagree on what a page holds.
"""

from __future__ import annotations

from typing import Any, Generic, NamedTuple, TypeVar

T = TypeVar("T")

DEFAULT_LIMIT = 50


class Page(NamedTuple, Generic[T]):
    """One page of a query, and how many records match in all: `items, total = await store.query()`."""

    items: list[T]
    total: int


class StoredText(NamedTuple):
    """A stored record as JSON text its store vouches for, `id` its id: the JSON value the record it
    reads as dumps to, as the store keeps it (`model_dump(mode="json")`, by alias for a run), checked
    by the store when it wrote the text and the text unchanged since. A surface that sends a page on
    as JSON (the HTTP API) then need not read it: the stores' `query_texts`."""

    id: str
    text: bytes


def check_window(limit: int, offset: int) -> None:
    if limit < 0 or offset < 0:
        raise ValueError(f"limit and offset must not be negative (got limit={limit}, offset={offset})")


def contains_text(value: Any, text: str) -> bool:
    """`text` appears in `value`, ignoring case (the search box's rule)."""
    return isinstance(value, str) and text.casefold() in value.casefold()


def sort_key(fields: dict[str, Any], record_id: str) -> tuple[float, str]:
    """Order of records in a page (largest first): `created_at`, then id. A missing time sorts last."""
    created = fields.get("created_at")
    number = float(created) if isinstance(created, int | float) and not isinstance(created, bool) else 0.0
    return number, record_id
