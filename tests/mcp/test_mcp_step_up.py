"""A step-up in the middle of a run, against the project's test authorization server (`auth_server.py
oauth --step-up`, a real process on loopback): SeqDesk is signed in with the scope `mcp`, and the tool
`secret` is refused 403 `insufficient_scope` asking for `mcp extra`. The step waits instead of
failing: it says it needs the person to sign in, the connection's state offers the sign-in (the
server's row in Settings shows Sign in for it), and once the person signed in the call is made again
and the run succeeds. A server that does not grant the scope after the sign-in gets one retry, not two.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp_support import expect
from support.mcp_auth import REDIRECT, T, auth_server, follow_sign_in, http_config, query_of, stats
from support.waiting import within

from gui.core.asks.elicitation import NoopElicitationHandler
from gui.core.door import Engine
from gui.core.errors import ToolError
from gui.core.tools.registry import Registry, ToolContext
from gui.mcp.client import McpConnection
from gui.mcp.config import McpServerConfig
from gui.mcp.secrets import FileSecrets
from gui.mcp.sign_in import SignIns

STEP = {"tool": "guarded.secret", "args": {}, "as": "said"}
SECRET = {"name": "secret", "groups": [{"name": "secret-g", "in": {}, "out": {"said": "string"},
                                        "tools": json.dumps(STEP) + " ;"}]}


@pytest.fixture
def secrets(tmp_path) -> FileSecrets:
    return FileSecrets(tmp_path / "mcp-secrets.json")


async def person_signs_in(sign_ins: SignIns, config: McpServerConfig, conn: McpConnection) -> None:
    """What the Sign in button of the server's row does, then the person's browser on its page."""
    url = await sign_ins.start(config, REDIRECT, on_signed_in=lambda _name: conn.signed_in(),
                               challenge=conn.sign_in_wanted())
    assert url is not None
    answer = query_of(await follow_sign_in(url))
    sign_in = sign_ins.answer(answer.get("state"), answer.get("code"), answer.get("iss"))
    await within(sign_in.finished.wait(), "the sign-in to finish")
    assert sign_in.error is None


async def connected(config: McpServerConfig, secrets: FileSecrets, registry: Registry,
                    sign_ins: SignIns) -> McpConnection:
    """A connection signed in with the scope `mcp` only."""
    conn = McpConnection(config, registry, NoopElicitationHandler(), backoff=(30.0, 30.0), secrets=secrets)
    await conn.start()
    assert (await conn.wait_for("down", timeout=T)).needs_sign_in
    await person_signs_in(sign_ins, config, conn)
    assert (await conn.wait_for("connected", timeout=T)).status == "connected"
    return conn


async def test_a_step_up_during_a_run_waits_for_the_sign_in_then_the_call_goes_on(secrets, registry, engine: Engine):
    async with auth_server("oauth", "--step-up") as base:
        config = http_config("guarded", f"{base}/mcp")
        sign_ins = SignIns(secrets)
        conn = await connected(config, secrets, registry, sign_ins)
        try:
            engine.modes.set("guarded.secret", "always-allow")
            await engine.create(SECRET)
            waiting = expect(engine, "tool.progress", lambda e: "needs you to sign in" in (e.data.get("message") or ""))
            run = asyncio.create_task(engine.run("secret"))
            said = await within(waiting, "the step to say it needs a sign-in")
            assert "scope mcp extra" in said.data["message"] and "Settings" in said.data["message"]
            state = await conn.wait_for("down", timeout=T)
            assert state.needs_sign_in and not run.done()  # the row offers Sign in; the step still waits
            assert (await stats(base))["step-up"] == 1

            await person_signs_in(sign_ins, config, conn)
            record = await within(run, "the run's end")
            assert record.status == "succeeded", record.to_summary_json()
            assert record.outputs["said"].startswith("the secret, for a token with ")
            assert set(record.outputs["said"].rsplit("with ", 1)[1].split()) == {"mcp", "extra"}
            seen = await stats(base)
            assert (seen["step-up"], seen["authorize:extra mcp"]) == (1, 1)
        finally:
            await sign_ins.close()
            await conn.stop()


async def test_a_scope_the_server_does_not_grant_is_asked_for_once_then_the_step_fails_in_words(secrets, registry):
    async with auth_server("oauth", "--step-up", "--withhold-extra") as base:
        config = http_config("guarded", f"{base}/mcp")
        sign_ins = SignIns(secrets)
        conn = await connected(config, secrets, registry, sign_ins)
        try:
            said: list[str] = []
            ctx = ToolContext(run_id="r", tool_call_id="r-0-0", tool_name="guarded.secret",
                              progress=lambda _done, _total, message: said.append(message or ""))
            call = asyncio.create_task(registry.get("guarded.secret").call({}, ctx))
            await conn.wait_for("down", timeout=T)
            assert not call.done() and any("needs you to sign in" in m for m in said)
            await person_signs_in(sign_ins, config, conn)  # the server grants `mcp` only
            with pytest.raises(ToolError, match="does not grant it"):
                await within(call, "the call's refusal")
            assert conn.sign_in_wanted() is None  # not offered again for the same scope
            seen = await stats(base)
            assert (seen["step-up"], seen["authorize:mcp"]) == (2, 2)  # the first sign-in, then the step-up's
        finally:
            await sign_ins.close()
            await conn.stop()
