"""The terminal's elicitation handler (`gui.cli.form_prompt`): a form asked field by field at the prompt."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import pytest

from gui.cli.form_prompt import TerminalElicitationHandler, parse_value
from gui.core.asks.interactions import ElicitationField, ElicitationRequest, ElicitationResponse
from gui.core.asks.responses import value_problems

TIMEOUT = 2.0

FIELDS = [
    ElicitationField(name="table", type="string", title="Table", required=True),
    ElicitationField(name="limit", type="number", default=10),
    ElicitationField(name="dry", type="boolean", required=True),
]


def req(**overrides: object) -> ElicitationRequest:
    data: dict[str, object] = {"server_name": "db", "message": "Which table?", "fields": FIELDS}
    return ElicitationRequest.model_validate(data | overrides)


# --- terminal ------------------------------------------------------------------------------


class Script:
    """Plays typed lines to the prompts; end of input when it runs out."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


async def ask(lines: list[str], request: ElicitationRequest | None = None) -> tuple[ElicitationResponse, list[str]]:
    output: list[str] = []
    handler = TerminalElicitationHandler(input_fn=Script(lines), output=output.append)
    return await asyncio.wait_for(handler.handle_elicitation(request or req()), TIMEOUT), output


async def test_terminal_converts_each_answer_to_its_field_type() -> None:
    reply, output = await ask(["users", "2.5", "yes"])
    assert reply == ElicitationResponse.accept({"table": "users", "limit": 2.5, "dry": True})
    assert output[0] == "db asks: Which table?"


async def test_terminal_takes_the_default_on_empty_input_and_skips_empty_optional_fields() -> None:
    fields = [*FIELDS, ElicitationField(name="note", type="string")]
    reply, _ = await ask(["users", "", "n", ""], req(fields=fields))
    assert reply.values == {"table": "users", "limit": 10, "dry": False}


async def test_terminal_converts_a_default_sent_as_text() -> None:
    reply, _ = await ask([""], req(fields=[ElicitationField(name="limit", type="number", default="7")]))
    assert reply.values == {"limit": 7}


async def test_terminal_asks_again_for_a_required_field_left_empty() -> None:
    reply, output = await ask(["", "users", "", "no"])
    assert reply.values["table"] == "users"
    assert "  this field is required" in output


async def test_terminal_asks_again_when_the_text_does_not_fit_the_type() -> None:
    reply, output = await ask(["users", "ten", "10", "maybe", "y"])
    assert reply.values == {"table": "users", "limit": 10, "dry": True}
    assert "  'ten' is not a number" in output and "  'maybe' is not yes or no" in output


@pytest.mark.parametrize(("typed", "action"), [("!decline", "decline"), ("!cancel", "cancel")])
async def test_terminal_can_decline_or_cancel_at_any_prompt(typed: str, action: str) -> None:
    reply, _ = await ask(["users", typed])
    assert reply == ElicitationResponse(action=action)


async def test_terminal_end_of_input_cancels() -> None:
    assert (await ask(["users"]))[0].action == "cancel"


@pytest.mark.parametrize(("typed", "action"), [("y", "accept"), ("n", "decline")])
async def test_terminal_url_mode_shows_the_address_and_asks_to_continue(typed: str, action: str) -> None:
    reply, output = await ask(["what", typed], req(fields=[], url="https://example.org/login"))
    assert reply.action == action and reply.values == {}
    assert "Open this address: https://example.org/login" in output


async def test_terminal_prompts_never_interleave() -> None:
    script = Script(["a", "", "y", "b", "", "n"])
    handler = TerminalElicitationHandler(input_fn=script, output=lambda _: None)
    replies = await asyncio.wait_for(
        asyncio.gather(handler.handle_elicitation(req()), handler.handle_elicitation(req())), TIMEOUT
    )
    assert sorted((r.values["table"], r.values["dry"]) for r in replies) == [("a", True), ("b", False)]


# --- values ---------------------------------------------------------------------------------


def test_parse_value_checks_enum_membership() -> None:
    field = ElicitationField(name="mode", type="string", enum=["fast", "safe"])
    assert parse_value(field, " safe ") == "safe"
    with pytest.raises(ValueError, match="'slow' is not one of: fast, safe"):
        parse_value(field, "slow")


def test_parse_value_refuses_infinite_numbers() -> None:
    with pytest.raises(ValueError, match="not a finite number"):
        parse_value(ElicitationField(name="n", type="number"), "inf")


def test_a_very_large_whole_number_is_a_number_not_a_crash() -> None:
    field = ElicitationField(name="n", type="number")
    huge = 10**400
    assert value_problems([field], {"n": huge}) == []
    assert parse_value(field, str(huge)) == huge
