"""`seqdesk mcp [--http PORT]`: serve SeqDesk's operations to an AI agent over stdio or HTTP (its
arguments are read by `gui.cli.mcp`, which loads none of this package).

Over stdio the standard output belongs to the protocol, so everything for people goes to stderr.
HTTP listens on 127.0.0.1 unless `--host` says otherwise, and then only with a token (`--token` or
`SEQDESK_TOKEN`, at least 16 characters), which every request must carry as a bearer: these tools
run shell commands once a person approves them. With or without a token the request gate
(`gui.api.request_gate`) and the SDK's own checks refuse another Host or Origin, so no web page can
call the tools. When the app holds the data folder, every call goes to the app
(`gui.remote`), whose inbox then shows the agent's approvals; when none does, the app is started in
the background for it (no window: `gui.second_launch.start_background`), so there is always one to
answer in, and the SeqDesk started afterwards joins it. Only with SEQDESK_MEMORY does the engine
open here.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gui.settings import Settings

log = logging.getLogger(__name__)
HOST = "127.0.0.1"


def cmd_mcp(args: argparse.Namespace) -> int:
    import asyncio

    from gui.serving import token_problem
    from gui.settings import load_settings

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="seqdesk mcp: %(message)s")
    host = args.host or HOST
    settings = getattr(args, "settings", None) or load_settings()
    if args.token:
        settings = settings.model_copy(update={"token": args.token})
    token = settings.token
    if args.http is None and (args.host or args.token):
        print("seqdesk mcp: --host and --token are for --http PORT (stdio needs neither)", file=sys.stderr)
        return 2
    problem = token_problem(host, token) if args.http is not None else None
    if problem:
        print(f"seqdesk mcp: {problem}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(settings, http_port=args.http, host=host))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # start-up failures (data folder in use, …) as a sentence, not a traceback
        print(f"seqdesk mcp: {exc}", file=sys.stderr)
        return 1
    return 0


def http_app(server: Any, *, host: str, port: int, token: str | None) -> Any:
    """The streamable-HTTP ASGI app behind the request gate and, with a token, the bearer gate."""
    from mcp.server.transport_security import TransportSecuritySettings

    from gui.api.auth import TokenGate
    from gui.api.request_gate import RequestGate, Served

    served = Served.at(host, port)
    # The SDK compares exact hosts; listening on every interface, the request gate alone decides.
    security = TransportSecuritySettings(enable_dns_rebinding_protection=not served.any_ip,
                                         allowed_hosts=[f"{n}:{port}" for n in sorted(served.names)],
                                         allowed_origins=served.origins)
    app = server.streamable_http_app(host=host, transport_security=security)
    gated: Any = TokenGate(app, token=token, pages=False) if token else app
    return RequestGate(gated, served=served)


async def serve(settings: Settings, *, http_port: int | None = None, host: str = HOST) -> None:
    """Reach the engine (through the app when it holds the data folder), serve until the agent leaves."""
    from gui.core.door import Operations
    from gui.doors import app_door, open_operations, resolve_data_dir
    from gui.mcp.agent_runs import AgentRuns
    from gui.mcp.server import build_server
    from gui.mcp.task_book import TaskBook

    token = settings.token
    # One app per data folder: the app that serves it, started in the background when none does, so a
    # person can always answer what the agent's runs ask (in its inbox, or by starting SeqDesk, which
    # joins it). An in-memory engine (SEQDESK_MEMORY, tests) and a team's database open here; a team's
    # server (--connect) is the door itself.
    ops = await (open_operations(settings) if settings.memory or settings.store is not None
                 else app_door(settings, start=True))

    async def open_ops() -> Operations:
        return ops

    # The tasks it gives are written down in the data folder: a `seqdesk mcp` started again answers for them.
    runs = AgentRuns(TaskBook(None if settings.memory else resolve_data_dir(settings)))
    server = build_server(open_ops, runs=runs)
    try:
        if http_port is None:
            from gui.mcp.stdio import run_stdio

            await run_stdio(server)
        else:
            import uvicorn

            from gui.serving import HTTP_PARSER

            app = http_app(server, host=host, port=http_port, token=token)
            where = f"[{host}]" if ":" in host else host
            print(f"seqdesk mcp: serving on http://{where}:{http_port}/mcp" + (" (bearer token required)" if token
                  else ""), file=sys.stderr, flush=True)
            config = uvicorn.Config(app, host=host, port=http_port, access_log=False, http=HTTP_PARSER)
            await uvicorn.Server(config).serve()
    finally:
        await runs.settle(someone_answers=ops.inbox_url is not None)
        await ops.close()
