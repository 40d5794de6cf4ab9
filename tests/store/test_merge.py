"""`merge.page`: a page of rows across sources, skipping whole groups of sources that do not overlap."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from gui.store.merge import Row, page


class Rows:
    """A source as a segment's selection is one: rows largest first, a count, bounds (or none)."""

    def __init__(self, rows: list[Row], *, bounds: bool = True) -> None:
        self._rows = sorted(rows, reverse=True)
        self.count = len(rows)
        self.top: Any = (self._rows[0][0][0], "\U0010ffff") if rows and bounds else None
        self.bottom: Any = (self._rows[-1][0][0], "") if rows and bounds else None
        self.produced = 0  # rows handed out: what a page costs

    def rows(self) -> Iterator[Row]:
        for row in self._rows:
            self.produced += 1
            yield row

    def window(self, start: int, stop: int) -> list[Row]:
        taken = self._rows[start:stop]
        self.produced += len(taken)
        return taken


def rows_between(rng: random.Random, low: float, high: float, n: int, tag: str) -> list[Row]:
    times = [round(rng.uniform(low, high), 1) for _ in range(n)]
    return [((t, f"{tag}-{i:04d}"), f"{tag}-{i:04d}") for i, t in enumerate(times)]


@pytest.mark.parametrize("seed", range(40))
def test_every_window_is_the_window_of_all_rows_sorted(seed: int) -> None:
    rng = random.Random(seed)
    sources, everything = [], []
    start = 0.0
    for s in range(rng.randint(0, 7)):
        width = rng.uniform(1, 50)
        low = start - (rng.uniform(0, width) if rng.random() < 0.4 else 0)  # some overlap the one before
        rows = rows_between(rng, low, low + width, rng.randint(0, 40), f"s{s}")
        sources.append(Rows(rows, bounds=rng.random() > 0.1))
        everything += rows
        start = low + width + rng.uniform(0, 5)
    hot = sorted(rows_between(rng, start - 10, start + 10, rng.randint(0, 10), "hot"), reverse=True)
    everything += hot
    ordered = sorted(everything, reverse=True)
    for offset in (0, 1, 7, 30, len(ordered) // 2, len(ordered), len(ordered) + 3):
        for limit in (None, 0, 1, 5, 50):
            expected = ordered[offset:] if limit is None else ordered[offset:offset + limit]
            assert page(hot, sources, offset, limit) == expected, (offset, limit)


def test_a_deep_page_costs_its_own_rows_not_the_rows_before_it() -> None:
    rng = random.Random(1)
    sources = [Rows(rows_between(rng, 100.0 * s, 100.0 * s + 99, 1000, f"s{s}")) for s in range(20)]
    got = page([], sources, 15_000, 50)
    assert len(got) == 50
    assert sum(s.produced for s in sources) == 50  # the 15,000 rows before it were skipped by count


def test_overlapping_sources_are_merged_only_among_themselves() -> None:
    rng = random.Random(2)
    old = [Rows(rows_between(rng, 100.0 * s, 100.0 * s + 99, 500, f"s{s}")) for s in range(10)]
    a, b = (Rows(rows_between(rng, 2000, 2100, 500, tag)) for tag in ("a", "b"))  # two that overlap
    got = page([], [*old, a, b], 200, 50)
    assert got == sorted([*a._rows, *b._rows], reverse=True)[200:250]
    assert sum(s.produced for s in old) == 0
