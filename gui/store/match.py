"""What a store query wants of the index fields, in a form the history indexes can answer fast.

A `Match` is a TinyDB query (call it with a document's index fields: `match(fields) -> bool`, and
it is hashable, so history keeps each segment's answer per match), and it says what it tests field
by field, so a segment answers it from its postings (value → positions) instead of testing every
entry: `one_of` (the field is one of these values), `contains` (the field is text holding this
text, ignoring case) and `at_least`/`below` (a number in a half-open range). Any other TinyDB query
still works with the stores; it is tested entry by entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gui.core.queries import contains_text


@dataclass(frozen=True)
class Match:
    """Every part must hold. Build it with `Match.where(...)`; `Match()` matches everything."""

    one_of: tuple[tuple[str, frozenset[Any]], ...] = ()
    contains: tuple[tuple[str, str], ...] = ()
    at_least: tuple[tuple[str, float], ...] = ()
    below: tuple[tuple[str, float], ...] = ()

    @classmethod
    def where(cls, equal: Mapping[str, Any] | None = None, *, one_of: Mapping[str, frozenset[Any]] | None = None,
              contains: Mapping[str, str] | None = None, at_least: Mapping[str, float] | None = None,
              below: Mapping[str, float] | None = None) -> Match:
        """A match from plain mappings; `equal` values are a `one_of` of one."""
        choices = {name: frozenset([value]) for name, value in (equal or {}).items()}
        choices.update(one_of or {})
        return cls(tuple(sorted(choices.items())), tuple(sorted((contains or {}).items())),
                   tuple(sorted((at_least or {}).items())), tuple(sorted((below or {}).items())))

    def is_cacheable(self) -> bool:
        return True

    def in_range(self, fields: Mapping[str, Any]) -> bool:
        """The `at_least`/`below` parts alone."""
        for name, low in self.at_least:
            value = fields.get(name)
            if not isinstance(value, int | float) or isinstance(value, bool) or value < low:
                return False
        for name, high in self.below:
            value = fields.get(name)
            if not isinstance(value, int | float) or isinstance(value, bool) or value >= high:
                return False
        return True

    def __call__(self, value: Mapping[Any, Any]) -> bool:
        """Whether index fields `value` match (TinyDB's name for a query's argument)."""
        return (all(_among(value.get(name), values) for name, values in self.one_of)
                and all(contains_text(value.get(name), text) for name, text in self.contains)
                and self.in_range(value))


def _among(value: Any, values: frozenset[Any]) -> bool:
    try:
        return value in values
    except TypeError:  # an unhashable value (a list) is none of them
        return False
