"""One page of rows, largest first, out of the hot documents and the history segments together.

Each source (the hot rows, and each segment's `Selection`) is ordered largest first on its own and
knows its count, and, in the stores' own order (`sort_key`), bounds no key of its rows is outside
(`top`, `bottom`). Segments are written in time order, so their ranges seldom
overlap: sources whose ranges overlap are gathered into clusters, and the clusters follow one another
without mixing. A page at offset N skips whole clusters by their counts, then takes its rows from the
cluster holding them: sliced from the one source of a cluster, merged (lazily, from the top) only
within a cluster of several. A deep page costs what its own rows cost, not the rows before it (a heap
over every row up to the offset did: 3 ms at page 40 of 100,000 answered requests, on the store
thread an answer waits for).
When some bound is unknown (another order than the stores' own), the rows are merged from the top,
each segment ordered only once the merge reaches its top.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

Row = tuple[Any, str]  # (key, document id)


class Source(Protocol):
    count: int
    top: Any | None
    bottom: Any | None

    def rows(self) -> Iterator[Row]: ...

    def window(self, start: int, stop: int) -> list[Row]: ...


class HotRows:
    """The hot documents' rows, already ordered largest first."""

    def __init__(self, rows: list[Row]) -> None:
        self._rows = rows
        self.count = len(rows)
        self.top = rows[0][0] if rows else None
        self.bottom = rows[-1][0] if rows else None

    def rows(self) -> Iterator[Row]:
        return iter(self._rows)

    def window(self, start: int, stop: int) -> list[Row]:
        return self._rows[start:stop]


def page(hot: list[Row], history: Sequence[Source], offset: int, limit: int | None) -> list[Row]:
    """Rows `offset` to `offset + limit` (all from `offset` for None) of hot and history together."""
    sources: list[Source] = [s for s in (HotRows(hot), *history) if s.count]
    if any(s.top is None or s.bottom is None for s in sources):
        merged = _merged(sources, None if limit is None else offset + limit)
        return merged[offset:]
    out: list[Row] = []
    skip, need = offset, limit
    for cluster in _clusters(sources):
        if need is not None and need <= 0:
            break
        size = sum(s.count for s in cluster)
        if skip >= size:
            skip -= size
            continue
        stop = size if need is None else min(size, skip + need)
        if len(cluster) == 1:
            rows = cluster[0].window(skip, stop)
        else:
            rows = _merged(cluster, stop)[skip:]  # each source ordered once the merge reaches its top
        out.extend(rows)
        if need is not None:
            need -= len(rows)
        skip = 0
    return out


def _clusters(sources: list[Source]) -> Iterator[list[Source]]:
    """The sources in groups whose key ranges overlap; every row of a group is above every row of
    the groups after it."""
    cluster: list[Source] = []
    low: Any = None
    for source in sorted(sources, key=_top, reverse=True):
        if cluster and source.top < low:
            yield cluster
            cluster, low = [], None
        cluster.append(source)
        low = source.bottom if low is None or source.bottom < low else low
    if cluster:
        yield cluster


class _Next:
    """A row in the merge's heap, largest first, with the rows that follow it."""

    __slots__ = ("row", "rest")

    def __init__(self, row: Row, rest: Iterator[Row]) -> None:
        self.row, self.rest = row, rest

    def __lt__(self, other: _Next) -> bool:
        return self.row > other.row


def _top(source: Source) -> Any:
    return source.top


def _merged(sources: list[Source], wanted: int | None) -> list[Row]:
    """The first `wanted` rows (all for None) of the sources together, largest first. A source whose
    `top` is known is ordered only once the merge reaches its top: a page of the newest reads the
    newest segments, not all of them."""
    heap: list[_Next] = []

    def add(rows: Iterator[Row]) -> None:
        first = next(rows, None)
        if first is not None:
            heapq.heappush(heap, _Next(first, rows))

    later = sorted((s for s in sources if s.top is not None), key=_top, reverse=True)
    for source in sources:
        if source.top is None:
            add(source.rows())
    out: list[Row] = []
    i = 0
    while wanted is None or len(out) < wanted:
        while i < len(later) and (not heap or later[i].top >= heap[0].row[0]):
            add(later[i].rows())
            i += 1
        if not heap:
            break
        best = heapq.heappop(heap)
        out.append(best.row)
        add(best.rest)
    return out
