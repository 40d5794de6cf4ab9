"""The run panel with a real MCP server (`tests/mcp/live_server.py` over stdio, added to the app's own
manager): a long tool's card shows its progress bar while it runs; its details show what its server
logged; pictures, sounds and links in a result are shown as they are; a prompt is a text template in
the palette."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from nicegui.testing import User
from support.ui import app_ctx

from gui.mcp.config import McpServerConfig
from gui.ui.components.run.result_media import MediaView
from gui.ui.components.run.tool_progress import ToolProgressBar, progress_words

LIVE = str(Path(__file__).resolve().parents[1] / "mcp" / "live_server.py")
T = 15.0


async def add_live_server() -> None:
    runtime = app_ctx().runtime
    assert runtime is not None and runtime.mcp is not None
    conn = await runtime.mcp.add(McpServerConfig(name="live", command=sys.executable, args=[LIVE], trusted=True))
    state = await conn.wait_for("connected", "down", timeout=T)
    assert state.status == "connected", state.last_error


async def one_step(name: str, tool: str, args: dict, out: str) -> None:
    step = {"tool": tool, "args": args, "as": "got"}
    await app_ctx().engine.create({"name": name, "groups": [
        {"name": f"{name}-g", "in": {}, "out": {"got": out}, "tools": json.dumps(step) + " ;"}]})


def test_progress_words_read_as_a_person_says_them():
    assert progress_words(3, 10, "copying") == "3 of 10 · copying"
    assert progress_words(2.5, None, None) == "2.5 so far"
    assert progress_words(0, None, "waits for you to sign in") == "waits for you to sign in"  # nothing counted yet


async def test_a_long_tools_card_shows_its_progress_and_its_details_its_log(user: User):
    await add_live_server()
    engine = app_ctx().engine
    await one_step("holding", "live.count", {"steps": 4, "hold": True}, "string")
    engine.modes.set("live.count", "always-allow")
    record = await engine.start("holding")
    await user.open(f"/run/{record.run_id}")
    await user.should_see("2 of 4 · step 2 of 4", retries=100)
    (bar,) = user.find(ToolProgressBar).elements
    assert bar.visible and bar.bar.value == 0.5
    user.find(marker="tool-0-0").click()
    await user.should_see("waiting to be released", retries=100)  # its log, in the details
    await engine.tool("live.release").call({}, _ctx())
    await asyncio.wait_for(engine.runner.wait(record.run_id), T)
    await user.should_see("counted to 4", retries=100)
    assert not bar.visible  # finished: the bar goes away
    await user.should_see("What it reported (5 lines)")


async def test_pictures_sounds_and_links_in_a_result_are_shown_as_they_are(user: User):
    await add_live_server()
    engine = app_ctx().engine
    await one_step("media", "live.picture", {}, "object")
    engine.modes.set("live.picture", "always-allow")
    record = await engine.run("media")
    assert record.status == "succeeded"
    await user.open(f"/run/{record.run_id}")
    await user.should_see("a picture, a sound and a link (1 picture, 1 sound, 2 links, 1 file)")
    user.find(marker="tool-0-0").click()
    await user.should_see(marker="result-image")
    await user.should_see(marker="result-audio")
    links = {getattr(e, "text", "") : e for e in user.find(marker="result-link").elements}
    assert links["The monthly report"].props["href"] == "https://example.com/report"
    assert "href" not in getattr(links["hello note"], "props", {})  # not http(s): text, not a link
    assert user.find(MediaView).elements


async def test_a_servers_prompt_is_a_text_template_in_the_palette(user: User):
    await add_live_server()
    from gui.ui.editor.palette import source_words

    tool = app_ctx().engine.tool("live.prompt/summarize")
    assert tool is not None
    assert source_words(tool).startswith("a text template from the server live")


def _ctx():
    from gui.core.tools.registry import ToolContext

    return ToolContext(run_id="x", tool_call_id="y", tool_name="live.release")
