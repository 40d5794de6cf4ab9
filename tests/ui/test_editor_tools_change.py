"""The editor draws argument forms from the door's tool listing, and follows it: a tool that arrives
while the editor is open (an MCP server connecting) gets its form and joins the palette; one that
leaves says it is not available."""

from __future__ import annotations

import json

from nicegui.testing import User
from support.editor import R, find
from support.ui import app_ctx

from gui.tools.echo import Echo


class LateEcho(Echo):
    name = "late.echo"  # as a server's tool would be named
    server = "late"


UNAVAILABLE = "This tool is not available now"


async def test_a_tool_arriving_and_leaving_while_the_editor_is_open_is_followed(user: User) -> None:
    engine = app_ctx().engine
    await engine.create({"name": "waits", "groups": [
        {"name": "g", "tools": json.dumps({"tool": "late.echo", "args": {}}) + " ;"}]})
    await user.open("/sequences/waits/edit")
    await user.should_see(UNAVAILABLE, retries=R)
    await user.should_not_see(marker="arg-value-value")

    engine.registry.add(LateEcho())
    try:
        await user.should_see(marker="arg-value-value", retries=100)  # its form, from the listing's schema
        await user.should_not_see(UNAVAILABLE)
        find(user, "group-1", "add-tool").click()
        await user.should_see(marker="palette-late.echo", retries=R)
        await user.should_see("from the server late")
    finally:
        engine.registry.remove("late.echo")
    await user.should_see(UNAVAILABLE, retries=100)
