"""Every route × every role on a team server: each route checks the role before it acts.

The routes are read from the one list (`gui.api.routes.routes(team=True)`), so a route added later is
in the table too. For each route a fresh world (a saved sequence, a run, an approval rule, a pending
request, a schedule, people), then every identity in turn: nobody signed in, a person with no role,
and one person per role, each with a personal token. A refused one must be 401 (nobody) or 403 (the
wrong role) with a sentence, and must change nothing (the world's snapshot is the same after it); a
permitted one must get past the gate. The figures are printed (`-s`): combinations, refused, and
how many acted where they must not (0).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from support.people import IDENTITIES, Team, team_app
from support.streaming import StreamingTransport
from support.waiting import wait_until, within

from gui.api.roles import OPEN, SIGNED_IN
from gui.api.routes import Route, routes
from gui.core.door import Engine, ProgramAsk

SEQUENCE = {"name": "seq1", "groups": [{"name": "g", "in": {}, "out": {},
                                        "tools": '{"tool": "cmd_run", "args": {"command": "true"}} ;'}]}
BODIES: dict[tuple[str, str], Any] = {
    ("POST", "/api/sequences"): {**SEQUENCE, "name": "seq2"},
    ("POST", "/api/check"): SEQUENCE,
    ("PUT", "/api/sequences/{name:path}"): SEQUENCE,
    ("POST", "/api/runs"): {"sequence": "seq1", "args": {}},
    ("POST", "/api/schedules"): {"sequence": "seq1", "args": {}, "every": "1h"},
    ("POST", "/api/schedules/{schedule_id}/pause"): {"paused": True},
    ("POST", "/api/interactions/{interaction_id}/respond"): {"kind": "approval", "decision": "denied"},
    ("POST", "/api/interactions/{interaction_id}/cancel"): {"reason": "no_one_to_ask"},
    ("POST", "/api/asks"): {"kind": "approval", "title": "Push", "command": "git push", "asker": "test"},
    ("PUT", "/api/settings/notifications"): {},
    ("POST", "/api/settings/notifications/test"): {},
    ("POST", "/api/mcp/servers"): {"name": "time", "transport": "stdio", "command": "true"},
    ("PATCH", "/api/mcp/servers/{name}"): {"enabled": False},
    ("POST", "/api/people"): {"name": "newcomer", "roles": ["runner"]},
    ("PUT", "/api/people/{name}/roles"): {"roles": ["runner"]},
    ("POST", "/api/me/tokens"): {"name": "another"},
    ("POST", "/api/runs/{run_id}/stop"): {},
    ("POST", "/api/runs/{run_id}/agent-left"): {},
    ("POST", "/api/runs/{run_id}/resume"): {},
    ("POST", "/api/mcp/servers/{name}/sign-in"): {},
    ("POST", "/api/mcp/servers/{name}/retry"): {},
    ("POST", "/api/people/{name}/invite"): {},
    ("POST", "/api/me/sign-out-everywhere"): {},
}
LISTED = routes(login=False, phones=False, team=True)
GATED = [r for r in LISTED if r.role != OPEN]
FIGURES: dict[str, int] = {"combinations": 0, "refused": 0, "permitted": 0, "permitted_done": 0,
                           "acted_where_refused": 0}


async def world(engine: Engine) -> tuple[Team, dict[str, str]]:
    """A team on `engine` with one of each thing a route names; the values for the paths."""
    from support.engine import next_pending_request

    team = await team_app(engine)
    await engine.create(SEQUENCE)
    waiting = next_pending_request(engine)
    run = await engine.start("seq1", {})
    asked = await within(waiting, "the run's request to wait for a person")
    await engine.respond(asked, {"kind": "approval", "decision": "approved", "scope": "sequence"})
    [rule] = await engine.approval_rules()

    async def finished() -> bool:
        record = await engine.get_run(run.run_id)
        return record is not None and record.finished

    await wait_until(finished, "the first run to end", timeout=10)
    state = await engine.ask(ProgramAsk(kind="approval", title="Push", command="git push", asker="test"))
    schedule = await engine.create_schedule("seq1", {}, every="1h")
    values = {"name:path": "seq1", "run_id": run.run_id, "schedule_id": schedule.schedule_id,
              "interaction_id": state.ask_id, "ask_id": state.ask_id, "rule_id:path": rule.rule_id,
              "token_id": "nosuch", "code": "nosuch"}
    return team, values


def path_of(route: Route, values: dict[str, str]) -> str:
    def fill(found: re.Match[str]) -> str:
        key = found.group(1)
        if key == "name":  # an MCP server's name, or a person's
            return "victim" if route.path.startswith("/api/people/") else "nosuch"
        return values[key]

    return re.sub(r"\{([^}]+)\}", fill, route.path)


def may(who: str, route: Route) -> bool:
    return who != "anonymous" and (route.role == SIGNED_IN or route.role == who)


async def send(team: Team, route: Route, path: str, who: str) -> tuple[int, str]:
    """The answer's status and its start; an event stream is closed once its headers are in."""
    body = BODIES.get((route.method, route.path))
    async with httpx.AsyncClient(transport=StreamingTransport(team.app), base_url="http://test") as client:
        async with client.stream(route.method, path, headers=team.headers(who),
                                 json=body if route.method in ("POST", "PUT", "PATCH") else None) as answer:
            if answer.headers.get("content-type", "").startswith("text/event-stream"):
                return answer.status_code, ""
            return answer.status_code, (await answer.aread()).decode(errors="replace")[-2000:]


@pytest.fixture
async def fresh_engine() -> AsyncIterator[Engine]:
    from gui.memory import MemoryStores
    from gui.runtime import compose_engine
    from gui.tools import default_registry

    engine = compose_engine(default_registry(), MemoryStores())
    yield engine
    await engine.close()


@pytest.mark.parametrize("route", GATED, ids=[f"{r.method} {r.path}" for r in GATED])
async def test_each_route_checks_the_role_before_it_acts(route: Route, fresh_engine: Engine):
    team, values = await world(fresh_engine)
    path = path_of(route, values)
    order = sorted(IDENTITIES, key=lambda who: may(who, route))  # the refused first: the world is still whole
    for who in order:
        before = await team.snapshot()
        status, text = await send(team, route, path, who)
        FIGURES["combinations"] += 1
        if may(who, route):
            FIGURES["permitted"] += 1
            FIGURES["permitted_done"] += 200 <= status < 300
            assert status not in (401, 403), f"{who} on {route.method} {path}: {status} {text}"
            continue
        FIGURES["refused"] += 1
        changed = await team.snapshot() != before
        FIGURES["acted_where_refused"] += changed
        expected = 401 if who == "anonymous" else 403
        assert (status, changed) == (expected, False), f"{who} on {route.method} {path}: {status} {text}"
        assert ("sign in" in text) if who == "anonymous" else (f"needs the {route.role} role" in text), text


def test_the_table_covers_every_route_and_identity():
    """Runs after the parametrized ones in this file (its order): the figures of the whole table."""
    assert len(GATED) >= 45 and len(IDENTITIES) == 6
    if FIGURES["combinations"]:  # the whole file ran
        assert FIGURES["combinations"] == len(GATED) * len(IDENTITIES)
        assert FIGURES["acted_where_refused"] == 0
    print(f"\nroute x role: {len(GATED)} gated routes ({len(LISTED) - len(GATED)} open) x {len(IDENTITIES)} "
          f"identities = {FIGURES['combinations']} combinations; refused {FIGURES['refused']}, permitted "
          f"{FIGURES['permitted']} ({FIGURES['permitted_done']} answered 2xx); "
          f"acted where refused: {FIGURES['acted_where_refused']}")


async def test_open_routes_answer_without_a_sign_in(fresh_engine: Engine):
    team, values = await world(fresh_engine)
    for route in (r for r in LISTED if r.role == OPEN):
        status, text = await send(team, route, path_of(route, values), "anonymous")
        if (route.method, route.path) == ("POST", "/login"):
            assert status == 401 and "do not match" in text  # an empty form: the form's own answer
        else:
            assert status not in (401, 403), f"{route.method} {route.path}: {status} {text}"
