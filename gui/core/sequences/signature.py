"""A sequence's signature: what a caller must give, and what it gets back.

Inputs are the `in` parameters that no earlier group's `out` provides; outputs are every `out`
slot. One name with two types anywhere in the sequence is a `type-conflict`: the run context is a
single namespace, so a slot read as a number and written as text could never be right.
"""

from __future__ import annotations

from gui.core.marks import N_, Sentence, sentence
from gui.core.sequences.model import Sequence, Signature, SlotType
from gui.core.sequences.problems import Problem, problem


def signature_problems(sequence: Sequence) -> tuple[Signature, list[Problem]]:
    inputs: dict[str, SlotType] = {}
    outputs: dict[str, SlotType] = {}
    seen: dict[str, tuple[SlotType, Sentence]] = {}
    problems: list[Problem] = []
    for gi, group in enumerate(sequence.groups):
        for field, slots in (("in", group.in_), ("out", group.out)):
            for name, slot_type in slots.items():
                first = seen.get(name)
                if first is not None and first[0] is not slot_type:
                    problems.append(problem(
                        ("groups", gi, field, name), "type-conflict",
                        N_("'{name}' is {type} here but {first} in {where}: "
                           "one name has one type in the whole sequence; rename one of them"),
                        name=name, type=slot_type.value, first=first[0].value, where=first[1]))
                    continue
                seen.setdefault(name, (slot_type, sentence(N_("group '{name}'"), name=group.name)))
        for name, slot_type in group.in_.items():
            if name not in outputs and name not in inputs:
                inputs[name] = slot_type
        for name, slot_type in group.out.items():
            outputs.setdefault(name, slot_type)
    return Signature(inputs=inputs, outputs=outputs), problems


def signature_of(sequence: Sequence) -> Signature:
    return signature_problems(sequence)[0]
