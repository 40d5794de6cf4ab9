"""The validator's checks of who answers a group's or a step's requests (`gui.core.sequences.asking`).

`check_asking` reads the answering keys of one group or tool object and says every problem with
its place: a target without `role:` or `person:`, a `required` below one or above the people named
(when only persons are named), a duration that is not one, an escalation without both its time and
whom it asks.
"""

from __future__ import annotations

from typing import Any

from gui.core.marks import N_, Sentence, sentence, verbatim
from gui.core.sequences.asking import ASKING_KEYS, Asking, split_target
from gui.core.sequences.durations import parse_duration
from gui.core.sequences.problems import Loc, Problem, problem


def check_asking(obj: dict[str, Any], loc: Loc, offset: int | None = None,
                 group: Asking | None = None) -> tuple[Asking | None, list[Problem]]:
    """The answering rules `obj` sets (None: it sets none, or they have errors) and every problem.
    `group` is what the step's group says: a step's `required` is checked with the group's approvers."""
    given = {key: obj[key] for key in ASKING_KEYS if key in obj}
    if not given:
        return None, []
    found: list[Problem] = []

    def error(field: str, code: str, message: str, **params: object) -> None:
        found.append(problem((*loc, field), code, sentence(message, **params), offset=offset))

    values: dict[str, Any] = {}
    for key in ("approvers", "escalate_to"):
        if key in given:
            targets = _targets(given[key], key, error)
            if targets is not None:
                values[key] = targets
    if "required" in given:
        required = given["required"]
        if not isinstance(required, int) or isinstance(required, bool):
            error("required", "bad-type", N_('"required" is a whole number of people, like 2 (no quotes)'))
        elif required < 1:
            error("required", "bad-required", N_('"required" is at least 1: one person must approve, or more'))
        else:
            values["required"] = required
    if "self_approve" in given:
        if isinstance(given["self_approve"], bool):
            values["self_approve"] = given["self_approve"]
        else:
            error("self_approve", "bad-type", N_('"self_approve" is true or false (no quotes)'))
    for key in ("remind_after", "escalate_after", "expire_after"):
        if key in given:
            text = given[key]
            if not isinstance(text, str):
                error(key, "bad-duration", N_('"{key}" is text with a unit, like "30m" or "4h", not {given}'),
                      key=key, given=repr(text))
                continue
            try:
                parse_duration(text)
            except ValueError as exc:
                words = getattr(exc, "words", None)
                found.append(problem((*loc, key), "bad-duration",
                                     words if isinstance(words, Sentence) else verbatim(str(exc)), offset=offset))
                continue
            values[key] = text
    if found:
        return None, found
    asking = Asking.model_validate(values).over(group) if group is not None else Asking.model_validate(values)
    found += _coherence(asking, given, loc, offset)
    return (None if any(p.severity == "error" for p in found) else Asking.model_validate(values)), found


def _targets(value: Any, key: str, error: Any) -> tuple[str, ...] | None:
    example = '["role:oncall", "person:li.wei"]'
    if not isinstance(value, list):
        error(key, "bad-type", N_('"{key}" is a list of people and roles, like {example}'), key=key, example=example)
        return None
    targets: list[str] = []
    for index, target in enumerate(value):
        if not isinstance(target, str) or split_target(target) is None:
            error(key, "bad-approver", N_('"{key}" item {number} is {given}: write "role:NAME" (everyone with '
                                          'that role) or "person:NAME" (one person)'),
                  key=key, number=index + 1, given=repr(target))
            return None
        if target in targets:
            error(key, "duplicate-approver", N_('"{key}" names {target} twice: keep one'), key=key, target=target)
            return None
        targets.append(target)
    if key == "approvers" and not targets:
        error(key, "no-approvers", N_('"approvers" is empty: name at least one role or person, or leave the key out '
                                      '(then anyone who may answer does)'))
        return None
    return tuple(targets)


def _coherence(asking: Asking, given: dict[str, Any], loc: Loc, offset: int | None) -> list[Problem]:
    """What the keys say together: enough people to reach `required`, an escalation with its time and
    its people, times that can come before the request ends."""
    found: list[Problem] = []
    persons, roles = asking.named("person"), asking.named("role")
    if persons and not roles and asking.required > len(persons):
        found.append(problem((*loc, "required"), "required-too-many", N_(
            '"required" is {required}, but "approvers" names fewer people ({count}): name more, or use a role'),
            offset=offset, required=asking.required, count=len(persons)))
    if asking.escalate_after is not None and not asking.escalate_to:
        found.append(problem((*loc, "escalate_after"), "escalate-to-nobody", N_(
            '"escalate_after" needs "escalate_to": the roles or people asked as well, like {example}'),
            offset=offset, example='["role:lead"]'))
    if asking.escalate_to and asking.escalate_after is None:
        found.append(problem((*loc, "escalate_to"), "escalate-when", N_(
            '"escalate_to" needs "escalate_after": how long to wait before asking them too, like "4h"'),
            offset=offset))
    expire = Asking.seconds(asking.expire_after)
    for key in ("remind_after", "escalate_after"):
        after = Asking.seconds(getattr(asking, key))
        if key in given and expire is not None and after is not None and after >= expire:
            found.append(problem((*loc, key), "after-expiry", N_(
                '"{key}" ({after}) is not before "expire_after" ({expire}): it would never happen'),
                offset=offset, severity="warning", key=key, after=getattr(asking, key), expire=asking.expire_after))
    return found
