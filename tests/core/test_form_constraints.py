"""A form's constraints are checked when the person answers: a wrong answer stays in the inbox."""

from __future__ import annotations

import pytest

from gui.core.asks import InteractionService, InteractionValidationError
from gui.core.asks.interactions import ElicitationField, ElicitationRequest, ToolSource
from gui.core.asks.responses import value_problems
from gui.memory import MemoryApprovalModes, MemoryInteractionStore

FIELDS = [
    ElicitationField(name="n", type="number", integer=True, minimum=1, maximum=100, required=True),
    ElicitationField(name="mail", type="string", format="email", max_length=20),
    ElicitationField(name="tags", type="string", enum=["a", "b"], multiple=True, min_items=1),
]


@pytest.mark.parametrize(("values", "says"), [
    ({"n": 500}, "500 is more than 100"), ({"n": 0}, "0 is less than 1"), ({"n": 2.5}, "not a whole number"),
    ({"n": 5, "mail": "nope"}, "not an email address"), ({"n": 5, "mail": "a" * 16 + "@b.co"}, "longer than 20"),
    ({"n": 5, "tags": []}, "choose at least 1"), ({"n": 5, "tags": ["z"]}, "z is not among: a, b"),
    ({"n": 5, "tags": "a"}, "not a list of choices"),
])
def test_each_constraint_is_a_problem_saying_what_and_where(values, says):
    problems = value_problems(FIELDS, values)
    assert any(says in p for p in problems), problems


def test_answers_that_fit_have_no_problem():
    assert value_problems(FIELDS, {"n": 100, "mail": "me@x.io", "tags": ["a", "b"]}) == []


async def test_an_answer_out_of_range_is_refused_and_the_form_stays_pending():
    service = InteractionService(MemoryInteractionStore(), modes=MemoryApprovalModes())
    request = ElicitationRequest(interaction_id="f1", turn_id="r", created_at=0, server_name="srv",
                                            message="How many?", fields=FIELDS,
                                            source=ToolSource(tool_call_id="c", tool_name="srv.t"))
    await service.request(request)
    with pytest.raises(InteractionValidationError, match="500 is more than 100"):
        await service.respond("f1", {"kind": "elicitation", "action": "accept", "values": {"n": 500}})
    assert (await service.get("f1")).status == "pending"
    await service.respond("f1", {"kind": "elicitation", "action": "accept", "values": {"n": 50}})
    assert (await service.get("f1")).status == "resolved"
