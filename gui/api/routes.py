"""Every HTTP route of SeqDesk in one list: what a client can ask, and which function answers.

Each endpoint is a plain function in the module of its concept; what it needs of the app (the
engine, the notifier, the MCP servers, phone access, the token) it is handed by FastAPI from the
`ApiContext` that `register_api` keeps on the app (`gui.api.shared`). The pages of the UI are listed
the same way in `gui.ui.pages.routes`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from fastapi import FastAPI
from fastapi.responses import Response

from gui.api import (
    asks,
    auth,
    events,
    interactions,
    mcp_servers,
    notifications,
    pairing,
    resume,
    runs,
    schedules,
    sequences,
)
from gui.api.auth import PAIR_PREFIX
from gui.api.health import health


class Route(NamedTuple):
    method: str
    path: str
    endpoint: Callable[..., Any]
    response_class: type[Response] | None = None
    page: bool = False  # a page for people, not a part of the API's schema


def routes(*, login: bool, phones: bool) -> list[Route]:
    """The routes, in the order they are matched; the login form only for an app with a token, the
    pairing routes only for one that phones may use."""
    listed = [
        Route("GET", "/api/health", health),
        Route("GET", "/api/sequences", sequences.list_sequences),
        Route("POST", "/api/sequences", sequences.create_sequence),
        Route("POST", "/api/check", sequences.check_sequence),
        Route("GET", "/api/sequences/{name:path}", sequences.get_sequence),
        Route("PUT", "/api/sequences/{name:path}", sequences.replace_sequence),
        Route("DELETE", "/api/sequences/{name:path}", sequences.delete_sequence),
        Route("GET", "/api/tools", sequences.list_tools),
        Route("POST", "/api/runs", runs.start_run),
        Route("GET", "/api/runs", runs.list_runs),
        Route("GET", "/api/runs/{run_id}", runs.get_run),
        Route("POST", "/api/runs/{run_id}/stop", runs.stop_run),
        Route("POST", "/api/runs/{run_id}/agent-left", runs.agent_left),
        Route("POST", "/api/runs/{run_id}/resume", resume.resume_run),
        Route("GET", "/api/schedules", schedules.list_schedules),
        Route("POST", "/api/schedules", schedules.add_schedule),
        Route("POST", "/api/schedules/{schedule_id}/pause", schedules.pause_schedule),
        Route("DELETE", "/api/schedules/{schedule_id}", schedules.delete_schedule),
        Route("GET", "/api/interactions", interactions.list_interactions),
        Route("POST", "/api/interactions/batch", interactions.respond_many),
        Route("GET", "/api/interactions/{interaction_id}", interactions.get_interaction),
        Route("POST", "/api/interactions/{interaction_id}/respond", interactions.respond),
        Route("POST", "/api/interactions/{interaction_id}/cancel", interactions.cancel),
        Route("POST", "/api/interactions/{interaction_id}/hand-over", interactions.hand_over),
        Route("POST", "/api/asks", asks.ask),
        Route("GET", "/api/asks/{ask_id}", asks.ask_state),
        Route("DELETE", "/api/asks/{ask_id}", asks.withdraw),
        Route("GET", "/api/approval-rules", interactions.rules),
        Route("DELETE", "/api/approval-rules/{rule_id:path}", interactions.revoke),
        Route("GET", "/api/events", *events.endpoint()),
        Route("GET", "/api/settings/notifications", notifications.get_notifications),
        Route("PUT", "/api/settings/notifications", notifications.put_notifications),
        Route("POST", "/api/settings/notifications/test", notifications.test_notification),
        Route("GET", "/api/mcp/servers", mcp_servers.list_servers),
        Route("POST", "/api/mcp/servers", mcp_servers.add_server),
        Route("GET", "/api/mcp/servers/{name}", mcp_servers.get_server),
        Route("PATCH", "/api/mcp/servers/{name}", mcp_servers.patch_server),
        Route("DELETE", "/api/mcp/servers/{name}", mcp_servers.delete_server),
        Route("POST", "/api/mcp/servers/{name}/sign-in", mcp_servers.sign_in),
        Route("POST", "/api/mcp/servers/{name}/retry", mcp_servers.retry),
    ]
    if login:
        listed += [
            Route("GET", "/login", auth.show_login, page=True),
            Route("POST", "/login", auth.do_login, page=True),
            Route("GET", "/logout", auth.logout, page=True),
        ]
    if phones:
        listed += [
            Route("GET", PAIR_PREFIX + "{code}", pairing.show_pairing, page=True),
            Route("POST", PAIR_PREFIX + "{code}", pairing.pair, page=True),
            Route("GET", "/api/phone", pairing.phone_state),
            Route("PUT", "/api/phone", pairing.phone_switch),
            Route("POST", "/api/phone/pairing", pairing.new_pairing),
            Route("DELETE", "/api/phone/phones/{phone_id}", pairing.forget),
        ]
    return listed


def add_routes(app: FastAPI, listed: list[Route]) -> None:
    for route in listed:
        extra: dict[str, Any] = {"response_class": route.response_class} if route.response_class else {}
        app.add_api_route(route.path, route.endpoint, methods=[route.method], include_in_schema=not route.page,
                          **extra)
