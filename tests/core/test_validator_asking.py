"""The sequence format's answering keys (`approvers`, `required`, `self_approve`, `remind_after`,
`escalate_after`, `escalate_to`, `expire_after`) on a group and on a tool step: read, checked with
located errors, written back, and kept out of the step's fingerprint."""

from __future__ import annotations

import json

import pytest

from gui.core.sequences import Asking, check_document, group_fingerprint, step_fingerprint, to_document


def doc(group: dict[str, object] | None = None, tool: dict[str, object] | None = None) -> dict[str, object]:
    step = {"tool": "echo", "args": {"value": "hi"}, **(tool or {})}
    return {"name": "s", "groups": [{"name": "g", **(group or {}), "tools": json.dumps(step) + " ;"}]}


def codes(document: dict[str, object]) -> list[tuple[str, str]]:
    result = check_document(document)
    return [(p.where(), p.code) for p in [*result.errors, *result.warnings]]


def test_a_group_and_a_step_say_who_answers_and_the_step_wins_key_by_key() -> None:
    result = check_document(doc({"approvers": ["role:oncall", "person:li.wei"], "required": 2,
                                 "remind_after": "30m"}, {"required": 1, "self_approve": True}))
    assert result.ok, result.errors
    group = result.sequence.groups[0]
    assert group.asking == Asking(approvers=("role:oncall", "person:li.wei"), required=2, remind_after="30m")
    step = group.tools[0].asking
    assert step is not None and step.over(group.asking) == Asking(
        approvers=("role:oncall", "person:li.wei"), required=1, self_approve=True, remind_after="30m")


def test_written_back_as_written_and_read_again_the_same() -> None:
    group = {"approvers": ["role:oncall"], "required": 2, "escalate_after": "4h", "escalate_to": ["role:lead"],
             "expire_after": "8h"}
    first = check_document(doc(group, {"approvers": ["person:sam", "role:lead"]}))
    written = to_document(first.sequence)
    assert written["groups"][0]["required"] == 2
    assert '"approvers":["person:sam","role:lead"]' in written["groups"][0]["tools"]
    assert check_document(written).sequence == first.sequence


def test_who_answers_changes_no_fingerprint_of_a_step_and_none_of_a_group_that_says_nothing() -> None:
    plain = check_document(doc()).sequence.groups[0]
    gated = check_document(doc(None, {"approvers": ["role:oncall"]})).sequence.groups[0]
    assert step_fingerprint(plain.tools[0], plain) == step_fingerprint(gated.tools[0], gated)
    assert "asking" not in plain.model_dump(by_alias=True)
    assert group_fingerprint(plain) != group_fingerprint(gated)  # the group as saved did change


@pytest.mark.parametrize(("group", "tool", "expected"), [
    ({"approvers": ["team:x"]}, None, [("groups[0].approvers", "bad-approver")]),
    ({"approvers": "role:oncall"}, None, [("groups[0].approvers", "bad-type")]),
    ({"approvers": []}, None, [("groups[0].approvers", "no-approvers")]),
    ({"approvers": ["role:a", "role:a"]}, None, [("groups[0].approvers", "duplicate-approver")]),
    ({"required": 0}, None, [("groups[0].required", "bad-required")]),
    ({"required": "2"}, None, [("groups[0].required", "bad-type")]),
    ({"required": True}, None, [("groups[0].required", "bad-type")]),
    ({"approvers": ["person:a", "person:b"], "required": 3}, None, [("groups[0].required", "required-too-many")]),
    ({"approvers": ["person:a"]}, {"required": 2}, [("groups[0].tools[0].required", "required-too-many")]),
    ({"self_approve": "yes"}, None, [("groups[0].self_approve", "bad-type")]),
    ({"remind_after": "soon"}, None, [("groups[0].remind_after", "bad-duration")]),
    ({"expire_after": 60}, None, [("groups[0].expire_after", "bad-duration")]),
    ({"escalate_after": "1h"}, None, [("groups[0].escalate_after", "escalate-to-nobody")]),
    ({"escalate_to": ["role:lead"]}, None, [("groups[0].escalate_to", "escalate-when")]),
    (None, {"approvers": ["group:ops"]}, [("groups[0].tools[0].approvers", "bad-approver")]),
    ({"remind_after": "2h", "expire_after": "1h"}, None, [("groups[0].remind_after", "after-expiry")]),
])
def test_each_mistake_is_named_where_it_is(group: dict[str, object] | None, tool: dict[str, object] | None,
                                           expected: list[tuple[str, str]]) -> None:
    assert codes(doc(group, tool)) == expected


def test_a_step_mistake_carries_its_offset_in_the_tools_text() -> None:
    result = check_document(doc(None, {"required": 0}))
    (found,) = result.errors
    assert found.offset == 0 and "at least 1" in found.message


def test_a_role_and_persons_together_may_require_more_than_the_persons_named() -> None:
    assert check_document(doc({"approvers": ["person:a", "role:oncall"], "required": 3})).ok


def test_a_step_that_sets_a_default_still_overrides_its_group_once_stored() -> None:
    first = check_document(doc({"approvers": ["role:oncall"], "required": 2}, {"approvers": ["person:sam"],
                                                                                "required": 1}))
    assert first.ok, first.errors
    again = check_document(to_document(first.sequence))
    assert again.ok, again.errors
    step = again.sequence.groups[0].tools[0]
    assert step.asking is not None and step.asking.over(again.sequence.groups[0].asking).required == 1
