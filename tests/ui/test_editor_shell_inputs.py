"""The editor says where an input may not go in a command, on the command field, in its own words."""

from __future__ import annotations

import json

from nicegui.testing import User
from support.editor import R, element, error_of, one_group, save, set_value
from support.ui import app_ctx


async def test_an_input_inside_quotes_in_a_command_is_refused_on_the_command_field_naming_the_input(user: User):
    await one_group(user)
    user.find(marker="view-text").click()
    doc = json.loads(element(user, "text-view").value)
    doc["groups"][0]["in"] = {"host": "string"}
    doc["groups"][0]["tools"] = json.dumps({"tool": "cmd_run", "args": {"command": "echo 'up: $args.host'"}}) + " ;"
    set_value(user, ("text-view",), json.dumps(doc, indent=2))
    user.find(marker="view-visual").click()
    await save(user)
    await user.should_see("1 problem", retries=R)
    said = error_of(user, "group-1", "tool-1", "arg-command-value")
    assert said.startswith("Remove the quotes around ⤷host: SeqDesk quotes inputs for you"), said
    assert await app_ctx().engine.list_sequences() == []
