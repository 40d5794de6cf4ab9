"""SeqDesk's own MCP connection (`McpConnection`, with `SignIns` for the sign-ins) as the client under
test of the official conformance suite:

    npx @modelcontextprotocol/conformance client --scenario auth/scope-step-up \
        --command "python tests/mcp/conformance_client.py"

The suite appends the server's address and says the scenario (`MCP_CONFORMANCE_SCENARIO`) and, for a
pre-registered client, its id and secret (`MCP_CONFORMANCE_CONTEXT`). This script plays the person:
it connects, calls every tool listed once, and whenever the connection says a sign-in is wanted
(`McpConnection.sign_in_wanted`: on connecting, or while a call refused for want of a scope waits for
it), it signs in through `SignIns` and follows the sign-in page as a browser would (the suite's
authorization server consents at once). It stops when the connection
offers no sign-in any more, so a server that never grants a scope is not asked again and again.
`--serve SOCKET` makes it a fork server instead: having imported the above once, it forks a client for
each `python -I -S tests/support/fork_door.py SOCKET URL` the suite starts (how the tests run it).
Not collected by pytest (no `test_` prefix).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2

sys.path.insert(0, str(Path(__file__).parents[2]))

from gui.core.asks.elicitation import ElicitationHandlerFunc  # noqa: E402
from gui.core.asks.interactions import ElicitationResponse  # noqa: E402
from gui.core.errors import ToolArgumentError, ToolError  # noqa: E402
from gui.core.tools.registry import Registry, ToolContext  # noqa: E402
from gui.mcp.client import McpConnection  # noqa: E402
from gui.mcp.config import McpServerConfig  # noqa: E402
from gui.mcp.oauth_client import set_client_secret  # noqa: E402
from gui.mcp.refusal import Challenge  # noqa: E402
from gui.mcp.secrets import MemorySecrets  # noqa: E402
from gui.mcp.sign_in import SignIns  # noqa: E402

REDIRECT = "http://127.0.0.1:9/oauth/callback"  # never reached: the browser's answer is read from the 302
T = 20.0


def sample_args(schema: dict[str, Any]) -> dict[str, Any]:
    """A value for each required argument, of its type (the suite checks the call, not the values)."""
    samples = {"number": 1, "integer": 1, "string": "test", "boolean": True, "array": [], "object": {}}
    props = schema.get("properties") or {}
    required = schema.get("required") or []
    return {name: samples.get(str((props.get(name) or {}).get("type")), "test") for name in required}


async def browser(url: str) -> dict[str, str]:
    async with httpx2.AsyncClient(timeout=T) as http:
        response = await http.get(url)
    location = response.headers.get("location", "")
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


async def main(url: str) -> int:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    secrets = MemorySecrets()
    config = McpServerConfig(name="conformance", transport="http", url=url,
                             oauth_client_id=context.get("client_id"))
    if context.get("client_secret"):
        set_client_secret(secrets, config.name, context["client_secret"])

    async def accept_defaults(_request: object) -> ElicitationResponse:
        return ElicitationResponse.accept({})

    registry = Registry()
    conn = McpConnection(config, registry, ElicitationHandlerFunc(accept_defaults), secrets=secrets,
                         backoff=(0.2, 1.0), connect_timeout=T)
    sign_ins = SignIns(secrets, timeout=T)
    called: set[str] = set()

    async def sign_in(challenge: Challenge) -> bool:
        """The person presses Sign in and consents in the browser; False when the sign-in failed."""
        page = await sign_ins.start(config, REDIRECT, on_signed_in=lambda _name: conn.signed_in(),
                                    challenge=challenge)
        if page is None:
            conn.retry_now()
            return True
        answer = await browser(page)
        done = sign_ins.answer(answer.get("state"), answer.get("code"), answer.get("iss"), answer.get("error"))
        await asyncio.wait_for(done.finished.wait(), T)
        if done.error:
            print(f"sign-in failed: {done.error}", file=sys.stderr)
            return False
        return True

    async def call(name: str) -> None:
        """A call, and the person beside it: a call refused for want of a scope waits for a sign-in."""
        tool = registry.get(name)
        made = asyncio.ensure_future(tool.call(sample_args(tool.input_schema()),
                                               ToolContext(run_id="c", tool_call_id=name, tool_name=name)))
        try:
            while not made.done():
                await asyncio.wait({made}, timeout=0.1)
                challenge = conn.sign_in_wanted() if conn.state.status == "down" else None
                if not made.done() and challenge is not None and sign_ins.pending(config.name) is None:
                    await sign_in(challenge)
            made.result()
        finally:
            made.cancel()

    await conn.start()
    try:
        for _ in range(8):
            state = await conn.wait_for("connected", "down", timeout=T)
            if state.status == "connected":
                for name in [n for n in registry.names() if n.startswith("conformance.") and n not in called]:
                    try:
                        await call(name)
                        called.add(name)
                    except ToolArgumentError as exc:  # our sample arguments did not fit: not the server's fault
                        print(f"{name}: {exc}", file=sys.stderr)
                        called.add(name)
                    except ToolError as exc:
                        print(f"{name}: {exc}", file=sys.stderr)
                        if conn.challenge is None:  # the server's own answer: the suite judges it
                            called.add(name)
                            continue
                        break
                else:
                    return 0
                state = await conn.wait_for("down", timeout=T)
            challenge = conn.sign_in_wanted()
            if challenge is None:
                print(f"no sign-in to offer: {state.last_error}", file=sys.stderr)
                return 1
            if not await sign_in(challenge):
                return 1
            await conn.wait_for("connecting", "connected", timeout=T)
        return 1
    finally:
        await sign_ins.close()
        await conn.stop()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:  # a fork server: a child per knock (tests/support/fork_door.py)
        sys.path.insert(0, str(Path(__file__).parents[1]))
        from support.fork_door import serve
        serve(sys.argv[2], lambda args: asyncio.run(main(args[-1])))
    sys.exit(asyncio.run(main(sys.argv[-1])))
