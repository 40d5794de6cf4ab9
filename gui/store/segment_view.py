"""One history segment's index, held in columns, answering queries from postings.

A `SegmentView` keeps the index fields of a segment's documents as one list per field (archive
order), with equal values shared (a status is stored once, not once per document), and builds
on first use, per field, the set of its distinct values. A `Match` (`gui.store.match`) is answered
column by column: `one_of` none of whose values the segment holds (a run's id, in every segment but
its own) needs no look at the entries, nor `contains` that no distinct value holds; ranges use the
field's bounds in the segment (all in or all out needs no test); only then entry by entry. Any other
query is tested on each entry. The answer is ordered largest key first (per key function, the
order is computed once); `gui.store.history` keeps answers per segment while it is unchanged.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from gui.core.queries import sort_key
from gui.store.match import Match

Fields = dict[str, Any]
_ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "<absent>"})()  # a field an entry does not have
SortKey = Callable[[Fields, str], Any]


class SegmentView:
    def __init__(self, ids: list[str], columns: dict[str, list[Any]]) -> None:
        """`ids` in archive order, and one list per field (`_ABSENT` where an entry lacks it)."""
        self.ids = ids
        self.columns = columns
        self._orders: dict[SortKey, tuple[list[int], list[int] | None, list[Any]]] = {}
        self._positions: dict[str, int] | None = None
        self._bounds_of: dict[str, tuple[float, float, bool] | None] = {}
        self._texts: dict[tuple[str, str], frozenset[Any]] = {}
        self._distinct: dict[str, frozenset[Any] | None] = {}

    @classmethod
    def of(cls, entries: Mapping[str, Mapping[str, Any]]) -> SegmentView:
        """The view of `entries`: id → index fields, in archive order."""
        return cls(list(entries), _columns(list(entries.values())))

    @classmethod
    def decode(cls, saved: Any) -> SegmentView | None:
        """The view `encode` gave; None if `saved` is not one (a cache: then read the index)."""
        try:
            ids, columns = saved["ids"], {}
            if not isinstance(ids, list) or (ids and set(map(type, ids)) != {str}):
                return None
            for name, column in saved["columns"].items():
                if "plain" in column:
                    values = column["plain"]
                else:
                    values = list(map(column["values"].__getitem__, column["codes"]))
                if len(values) != len(ids):
                    return None
                columns[name] = values
        except (KeyError, TypeError, IndexError, AttributeError):
            return None
        return cls(ids, columns)

    def encode(self) -> dict[str, Any] | None:
        """The view as compact JSON data (repeated values as codes), or None if it cannot be (an
        entry lacking a field)."""
        columns: dict[str, Any] = {}
        for name, column in self.columns.items():
            try:
                distinct = list(dict.fromkeys(column))
            except TypeError:
                return None
            if _ABSENT in distinct:
                return None
            texts = all(value is None or isinstance(value, str) for value in distinct)  # 1 == True == 1.0
            if not texts or len(distinct) * 4 > len(column):
                columns[name] = {"plain": column}
            else:
                code = {value: n for n, value in enumerate(distinct)}
                columns[name] = {"values": distinct, "codes": list(map(code.__getitem__, column))}
        return {"ids": self.ids, "columns": columns}

    def __len__(self) -> int:
        return len(self.ids)

    def entry(self, pos: int) -> Fields:
        return {name: column[pos] for name, column in self.columns.items() if column[pos] is not _ABSENT}

    def position(self, doc_id: str) -> int | None:
        if self._positions is None:
            self._positions = {doc_id: pos for pos, doc_id in enumerate(self.ids)}
        return self._positions.get(doc_id)

    def fields(self, doc_id: str) -> Fields | None:
        pos = self.position(doc_id)
        return None if pos is None else self.entry(pos)

    def choose(self, cond: Callable[[Fields], bool]) -> list[int] | None:
        """Positions of the entries matching `cond`, in archive order; None when all of them do."""
        if isinstance(cond, Match):
            return self._match(cond)
        return [p for p in range(len(self)) if cond(self.entry(p))]

    def ordered(self, chosen: list[int] | None, key: SortKey, hidden: Collection[int] = ()) -> list[int]:
        """The `chosen` positions (all for None) but those `hidden`, largest key first."""
        if chosen == []:
            return []
        order, rank, _ = self.order(key)
        if chosen is None:
            return [p for p in order if p not in hidden] if hidden else order
        if rank is None:  # archive order is key order: the answer reversed
            return [p for p in reversed(chosen) if p not in hidden]
        return sorted((p for p in chosen if p not in hidden), key=rank.__getitem__)

    def top(self, key: SortKey) -> Any | None:
        """A key no entry's key is above (known without ordering the entries), or None if unknown.
        From the bounds of the times, kept: every query with answers here asks."""
        if key is not sort_key or not self.ids:
            return None
        bounds = self._bounds("created_at")  # what is not a number sorts as 0
        largest = 0.0 if bounds is None else bounds[1] if bounds[2] else max(bounds[1], 0.0)
        return float(largest), "\U0010ffff"

    def bottom(self, key: SortKey) -> Any | None:
        """A key no entry's key is below (known without ordering the entries), or None if unknown."""
        if key is not sort_key or not self.ids:
            return None
        bounds = self._bounds("created_at")
        smallest = 0.0 if bounds is None else bounds[0] if bounds[2] else min(bounds[0], 0.0)
        return float(smallest), ""

    def rows(self, positions: list[int], key: SortKey) -> Iterator[tuple[Any, str]]:
        keys, ids = self.order(key)[2], self.ids
        return ((keys[p], ids[p]) for p in positions)

    def order(self, key: SortKey) -> tuple[list[int], list[int] | None, list[Any]]:
        """(positions largest key first, each position's rank in that order or None when that is
        archive order reversed, each position's key)."""
        known = self._orders.get(key)
        if known is None:
            if key is sort_key:  # the stores' own order: from the column, without a dict per entry
                created = self.columns.get("created_at", [_ABSENT] * len(self))
                keys: list[Any] = [(_seconds(c), i) for c, i in zip(created, self.ids, strict=True)]
            else:
                keys = [key(self.entry(p), doc_id) for p, doc_id in enumerate(self.ids)]
            try:
                ascending = all(a <= b for a, b in zip(keys, keys[1:], strict=False))
            except TypeError:
                ascending = False
            if ascending:
                known = (list(range(len(keys) - 1, -1, -1)), None, keys)
            else:
                order = sorted(range(len(keys)), key=keys.__getitem__, reverse=True)
                rank = [0] * len(order)
                for place, pos in enumerate(order):
                    rank[pos] = place
                known = (order, rank, keys)
            self._orders[key] = known
        return known

    def _match(self, cond: Match) -> list[int] | None:
        """Positions matching, in archive order, or None for all of them."""
        chosen: list[int] | None = None
        for name, values in cond.one_of:
            chosen = self._among(name, values, chosen)
            if not chosen:
                return []
        for name, text in cond.contains:
            chosen = self._among(name, self._holding(name, text), chosen)
            if not chosen:
                return []
        if cond.at_least or cond.below:
            inside = self._in_bounds(cond)
            if inside is False:
                return []
            if inside is None:
                candidates = chosen if chosen is not None else range(len(self))
                chosen = [p for p in candidates if cond.in_range(self.entry(p))]
        return chosen

    def _among(self, name: str, values: frozenset[Any], within: list[int] | None) -> list[int]:
        column = self.columns.get(name)
        if column is None:
            return list(range(len(self))) if None in values and within is None else (
                within if None in values and within is not None else [])
        wanted = set(values)
        if None in wanted:
            wanted.add(_ABSENT)
        held = self._values(name, column)
        if held is not None and held.isdisjoint(wanted):
            return []
        try:
            if within is None:
                return [p for p, value in enumerate(column) if value in wanted]
            return [p for p in within if column[p] in wanted]
        except TypeError:  # an unhashable value in the column (a list): equal to none of them
            if within is None:
                return [p for p, value in enumerate(column) if _hashable(value) and value in wanted]
            return [p for p in within if _hashable(column[p]) and column[p] in wanted]

    def _values(self, name: str, column: list[Any]) -> frozenset[Any] | None:
        """The distinct values of a column (kept: the view never changes); None when one is not
        hashable (a list), and the column is then read entry by entry."""
        if name not in self._distinct:
            try:
                self._distinct[name] = frozenset(column)
            except TypeError:
                self._distinct[name] = None
        return self._distinct[name]

    def _holding(self, name: str, text: str) -> frozenset[Any]:
        """The distinct values of the column that are text holding `text`, ignoring case."""
        found = self._texts.get((name, text))
        if found is None:
            folded = text.casefold()
            distinct = {v for v in self.columns.get(name, ()) if isinstance(v, str)}
            found = self._texts[(name, text)] = frozenset(v for v in distinct if folded in v.casefold())
            if len(self._texts) > 64:
                del self._texts[next(iter(self._texts))]
        return found

    def _in_bounds(self, cond: Match) -> bool | None:
        """True: every entry is in the range; False: none is; None: it must be tested."""
        every = True
        for name, low in cond.at_least:
            bounds = self._bounds(name)
            if bounds is None or bounds[1] < low:
                return False
            every = every and bounds[2] and bounds[0] >= low
        for name, high in cond.below:
            bounds = self._bounds(name)
            if bounds is None or bounds[0] >= high:
                return False
            every = every and bounds[2] and bounds[1] < high
        return True if every else None

    def _bounds(self, name: str) -> tuple[float, float, bool] | None:
        """Smallest and largest number in the column, and whether it holds numbers only; None if
        it holds no number."""
        if name not in self._bounds_of:
            column = self.columns.get(name, [])
            if column and set(map(type, column)) <= {float, int}:  # the usual case, at C speed
                self._bounds_of[name] = (min(column), max(column), True)
                return self._bounds_of[name]
            numbers = [v for v in column if isinstance(v, int | float) and not isinstance(v, bool)]
            self._bounds_of[name] = (min(numbers), max(numbers), len(numbers) == len(column)) if numbers else None
        return self._bounds_of[name]


class Selection:
    """What one segment holds of a query's answer: `count` entries, none keyed above `top` (None:
    unknown), and `rows()`, their `(key, id)` largest first, ordered on the first call."""

    def __init__(self, view: SegmentView, chosen: list[int] | None, key: SortKey, hidden: frozenset[int]) -> None:
        self._view, self._chosen, self._key, self._hidden = view, chosen, key, hidden
        if chosen is None:
            self.count = len(view) - len(hidden)
        else:
            self.count = len(chosen) - (sum(1 for p in chosen if p in hidden) if hidden else 0)
        self.top = view.top(key) if self.count else None
        self.bottom = view.bottom(key) if self.count else None
        self._ordered: list[int] | None = None

    def _positions(self) -> list[int]:
        if self._ordered is None:
            self._ordered = self._view.ordered(self._chosen, self._key, self._hidden)
        return self._ordered

    def rows(self) -> Iterator[tuple[Any, str]]:
        return self._view.rows(self._positions(), self._key)

    def window(self, start: int, stop: int) -> list[tuple[Any, str]]:
        """Rows `start` to `stop` of `rows()`, without producing the ones before."""
        return list(self._view.rows(self._positions()[start:stop], self._key))




def _seconds(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _columns(rows: list[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """One list per field; rows lacking a field hold `_ABSENT` there. Rows written by one indexer
    share their fields, and are split at C speed (`itemgetter`, `zip`)."""
    if not rows:
        return {}
    names = list(rows[0])
    try:
        if len(names) == 1:
            return {names[0]: _shared([row[names[0]] for row in rows])}
        if names and set(map(len, rows)) == {len(names)}:
            split = zip(*map(operator.itemgetter(*names), rows), strict=True)
            return {name: _shared(list(column)) for name, column in zip(names, split, strict=True)}
    except KeyError:  # a row with other fields: the slow way
        pass
    every: dict[str, None] = {}
    for row in rows:
        every.update(dict.fromkeys(row))
    return {name: _shared([row.get(name, _ABSENT) for row in rows]) for name in every}


def _shared(column: list[Any]) -> list[Any]:
    """The column with equal values as one object, when it repeats values (a status, a name)."""
    try:
        distinct = set(column)
    except TypeError:
        return column
    if len(distinct) * 4 > len(column):
        return column
    canon = {value: value for value in distinct}
    return list(map(canon.__getitem__, column))


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
