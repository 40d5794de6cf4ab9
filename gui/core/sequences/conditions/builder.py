"""The visual condition builder's view of a condition: rows of `input · operator · value`.

A condition fits the builder when it is `true`, or comparisons `$args.x OP literal` all joined by
`and` or all by `or`; anything else stays in the editor's text mode.
"""

from __future__ import annotations

from typing import Any

from gui.core.sequences.conditions.language import And, ArgRef, Compare, Condition, Literal, Or, _Junction


def condition_rows(cond: Condition) -> tuple[list[dict[str, Any]], str] | None:
    """(rows, joiner) when `cond` fits a visual builder, else None (the editor falls back to text).

    It fits when it is `true`, or comparisons `$args.x OP literal` (a bare `$args.flag` reads as
    `== true`) joined all by `and` or all by `or`. Rows are `{"arg", "op", "value"}`.
    """
    if cond == Literal(True):
        return [], "and"
    items = cond.operands if isinstance(cond, _Junction) else (cond,)
    joiner = cond.keyword if isinstance(cond, _Junction) else "and"
    rows: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, ArgRef):
            rows.append({"arg": item.name, "op": "==", "value": True})
        elif isinstance(item, Compare) and isinstance(item.left, ArgRef) and isinstance(item.right, Literal):
            rows.append({"arg": item.left.name, "op": item.op, "value": item.right.value})
        else:
            return None
    return rows, joiner


def rows_to_text(rows: list[dict[str, Any]], joiner: str = "and") -> str:
    """The condition text of builder rows; `true` for none. ValueError naming the row that is wrong."""
    if joiner not in ("and", "or"):
        raise ValueError(f"rows are joined by and or or, not {joiner!r}")
    nodes: list[Condition] = []
    for index, row in enumerate(rows):
        try:
            nodes.append(Compare(ArgRef(row["arg"]), row["op"], Literal(row["value"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"row {index + 1}: {exc}") from None
    if not nodes:
        return "true"
    if len(nodes) == 1:
        return nodes[0].to_text()
    return (And if joiner == "and" else Or)(tuple(nodes)).to_text()
