"""Every HTTP route of SeqDesk in one list: what a client can ask, which function answers, and which
role it needs on a team server (`gui.api.roles`: checked before the route acts).

Each endpoint is a plain function in the module of its concept; what it needs of the app (the
engine, the notifier, the MCP servers, phone access, the token) it is handed by FastAPI from the
`ApiContext` that `register_api` keeps on the app (`gui.api.shared`). The pages of the UI are listed
the same way in `gui.ui.pages.routes`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from fastapi import Depends, FastAPI
from fastapi.responses import Response

from gui.api import (
    asks,
    auth,
    events,
    hosts,
    interactions,
    mcp_servers,
    notifications,
    pairing,
    people,
    resume,
    runs,
    schedules,
    sequences,
    sign_in,
)
from gui.api.auth import PAIR_PREFIX
from gui.api.health import health
from gui.api.roles import OPEN, SIGNED_IN, needs
from gui.core.people import ADMIN, APPROVER, AUTHOR, RUNNER


class Route(NamedTuple):
    method: str
    path: str
    endpoint: Callable[..., Any]
    response_class: type[Response] | None = None
    page: bool = False  # a page for people, not a part of the API's schema
    role: str = SIGNED_IN  # what it needs on a team server (`gui.api.roles`)
    name: str | None = None


def routes(*, login: bool, phones: bool, team: bool = False) -> list[Route]:
    """The routes, in the order they are matched; the login form only for an app with a token, the
    pairing routes only for one that phones may use, the sign-in and people routes only on a team
    server (which has no phones: each person signs in on theirs)."""
    listed = [
        Route("GET", "/api/health", health, role=OPEN),
        Route("GET", "/api/sequences", sequences.list_sequences),
        Route("POST", "/api/sequences", sequences.create_sequence, role=AUTHOR),
        Route("POST", "/api/check", sequences.check_sequence),
        Route("GET", "/api/sequences/{name:path}", sequences.get_sequence),
        Route("PUT", "/api/sequences/{name:path}", sequences.replace_sequence, role=AUTHOR),
        Route("DELETE", "/api/sequences/{name:path}", sequences.delete_sequence, role=AUTHOR),
        Route("GET", "/api/tools", sequences.list_tools),
        Route("GET", "/api/hosts", hosts.list_hosts),
        Route("POST", "/api/runs", runs.start_run, role=RUNNER),
        Route("GET", "/api/runs", runs.list_runs),
        Route("GET", "/api/runs/{run_id}", runs.get_run),
        Route("POST", "/api/runs/{run_id}/stop", runs.stop_run, role=RUNNER),
        Route("POST", "/api/runs/{run_id}/agent-left", runs.agent_left, role=RUNNER),
        Route("POST", "/api/runs/{run_id}/resume", resume.resume_run, role=RUNNER),
        Route("GET", "/api/schedules", schedules.list_schedules),
        Route("POST", "/api/schedules", schedules.add_schedule, role=RUNNER),
        Route("POST", "/api/schedules/{schedule_id}/pause", schedules.pause_schedule, role=RUNNER),
        Route("DELETE", "/api/schedules/{schedule_id}", schedules.delete_schedule, role=RUNNER),
        Route("GET", "/api/interactions", interactions.list_interactions),
        Route("POST", "/api/interactions/batch", interactions.respond_many, role=APPROVER),
        Route("GET", "/api/interactions/{interaction_id}", interactions.get_interaction),
        Route("POST", "/api/interactions/{interaction_id}/respond", interactions.respond, role=APPROVER),
        Route("POST", "/api/interactions/{interaction_id}/cancel", interactions.cancel, role=APPROVER),
        Route("POST", "/api/interactions/{interaction_id}/hand-over", interactions.hand_over, role=APPROVER),
        Route("POST", "/api/asks", asks.ask, role=RUNNER),
        Route("GET", "/api/asks/{ask_id}", asks.ask_state),
        Route("DELETE", "/api/asks/{ask_id}", asks.withdraw, role=RUNNER),
        Route("GET", "/api/approval-rules", interactions.rules),
        Route("DELETE", "/api/approval-rules/{rule_id:path}", interactions.revoke, role=APPROVER),
        Route("GET", "/api/events", *events.endpoint()),
        Route("GET", "/api/settings/notifications", notifications.get_notifications, role=ADMIN),
        Route("PUT", "/api/settings/notifications", notifications.put_notifications, role=ADMIN),
        Route("POST", "/api/settings/notifications/test", notifications.test_notification, role=ADMIN),
        Route("GET", "/api/mcp/servers", mcp_servers.list_servers),
        Route("POST", "/api/mcp/servers", mcp_servers.add_server, role=ADMIN),
        Route("GET", "/api/mcp/servers/{name}", mcp_servers.get_server),
        Route("PATCH", "/api/mcp/servers/{name}", mcp_servers.patch_server, role=ADMIN),
        Route("DELETE", "/api/mcp/servers/{name}", mcp_servers.delete_server, role=ADMIN),
        Route("POST", "/api/mcp/servers/{name}/sign-in", mcp_servers.sign_in, role=ADMIN),
        Route("POST", "/api/mcp/servers/{name}/retry", mcp_servers.retry, role=ADMIN),
    ]
    if login:
        listed += [
            Route("GET", "/login", auth.show_login, page=True, role=OPEN),
            Route("POST", "/login", auth.do_login, page=True, role=OPEN),
            Route("GET", "/logout", auth.logout, page=True, role=OPEN),
        ]
    if phones:
        listed += [
            Route("GET", PAIR_PREFIX + "{code}", pairing.show_pairing, page=True, role=OPEN),
            Route("POST", PAIR_PREFIX + "{code}", pairing.pair, page=True, role=OPEN),
            Route("GET", "/api/phone", pairing.phone_state),
            Route("PUT", "/api/phone", pairing.phone_switch),
            Route("POST", "/api/phone/pairing", pairing.new_pairing),
            Route("DELETE", "/api/phone/phones/{phone_id}", pairing.forget),
        ]
    if team:
        listed += [
            Route("GET", "/login", sign_in.show_sign_in, page=True, role=OPEN),
            Route("POST", "/login", sign_in.do_sign_in, page=True, role=OPEN),
            Route("GET", "/login/oidc", sign_in.oidc_start, page=True, role=OPEN),
            Route("GET", "/login/oidc/callback", sign_in.oidc_finish, page=True, role=OPEN, name="oidc_finish"),
            Route("GET", "/invite/{code}", sign_in.show_invite, page=True, role=OPEN),
            Route("POST", "/invite/{code}", sign_in.accept_invite, page=True, role=OPEN),
            Route("GET", "/logout", sign_in.sign_out, page=True, role=OPEN),
            Route("POST", "/logout", sign_in.sign_out, page=True, role=OPEN),
            Route("POST", "/logout/everywhere", sign_in.sign_out_everywhere, page=True),
            Route("GET", "/api/people", people.list_people, role=ADMIN),
            Route("POST", "/api/people", people.add_person, role=ADMIN),
            Route("PUT", "/api/people/{name}/roles", people.set_roles, role=ADMIN),
            Route("POST", "/api/people/{name}/invite", people.invite_again, role=ADMIN),
            Route("DELETE", "/api/people/{name}", people.remove_person, role=ADMIN),
            Route("GET", "/api/me", people.me),
            Route("GET", "/api/me/tokens", people.my_tokens),
            Route("POST", "/api/me/tokens", people.make_token),
            Route("DELETE", "/api/me/tokens/{token_id}", people.revoke_token),
            Route("POST", "/api/me/sign-out-everywhere", people.sign_out_everywhere),
        ]
    return listed


def add_routes(app: FastAPI, listed: list[Route], *, team: bool = False) -> None:
    """Add the routes; on a team server each checks its role first (the desktop's one person has them all)."""
    for route in listed:
        extra: dict[str, Any] = {"response_class": route.response_class} if route.response_class else {}
        if route.name:
            extra["name"] = route.name
        app.add_api_route(route.path, route.endpoint, methods=[route.method], include_in_schema=not route.page,
                          dependencies=[Depends(needs(route.role))] if team else None, **extra)
