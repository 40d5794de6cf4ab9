"""Who calls whom through `seq_call`: the graph the catalog keeps, and the cycles the validator refuses.

Only literal names count (`{"name": "deploy"}`); a name given through `$args` is known only at run
time, where the runner's depth limit stops a sequence that ends up calling itself.
"""

from __future__ import annotations

from collections.abc import Mapping

from gui.core.marks import N_
from gui.core.sequences.model import Sequence, ToolCall
from gui.core.sequences.problems import Problem, problem


def called_name(call: ToolCall) -> str | None:
    """The sequence or group a `seq_call` names literally; None for any other call."""
    target = call.args.get("name") if call.tool == "seq_call" else None
    return target if isinstance(target, str) else None


def direct_calls(sequence: Sequence) -> dict[str, frozenset[str]]:
    """For the catalog: the names each group (and the whole sequence) calls through seq_call."""
    out: dict[str, frozenset[str]] = {}
    every: set[str] = set()
    for group in sequence.groups:
        names = {name for name in map(called_name, group.tools) if name is not None}
        out[group.name] = frozenset(names)
        every |= names
    out[sequence.name] = frozenset(every | {g.name for g in sequence.groups} - {sequence.name})
    return out


def cycle_problems(sequence: Sequence, calls: Mapping[str, frozenset[str]]) -> list[Problem]:
    """A `cycle` error for each seq_call of `sequence` that leads back into it, given the saved `calls`."""
    own = {sequence.name, *(g.name for g in sequence.groups)}
    problems = []
    for gi, group in enumerate(sequence.groups):
        for ti, call in enumerate(group.tools):
            target = called_name(call)
            path = _path(target, own, calls, {target}) if target is not None else None
            if path is not None:
                chain = " → ".join([group.name, *path])
                problems.append(problem(("groups", gi, "tools", ti, "args", "name"), "cycle",
                                        N_("seq_call makes a cycle ({chain}): a sequence may not call itself"),
                                        chain=chain))
    return problems


def _path(name: str, own: set[str], calls: Mapping[str, frozenset[str]], seen: set[str]) -> list[str] | None:
    if name in own:
        return [name]
    for callee in calls.get(name, frozenset()):
        if callee in seen:
            continue
        seen.add(callee)
        rest = _path(callee, own, calls, seen)
        if rest is not None:
            return [name, *rest]
    return None
