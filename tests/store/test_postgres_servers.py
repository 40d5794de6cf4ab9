"""Two or three real `seqdesk serve` processes on one real PostgreSQL database, over real HTTP, act as
one, each spoken to as the same person with their personal token (a team's server has no shared token):
an approval answered through one (by another person: who starts a run may not approve it) resumes the run
in the process that runs it, recorded as that person's;
the steps of a run
reach the other servers' event streams; an MCP server added through one is connected by the others; a
schedule fires once across three; a run whose server was killed is marked interrupted by another, once
its lease has expired and not before (stopped by the person, when someone pressed Stop for it meanwhile);
each server hears the others on one listening connection."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import psycopg
import pytest
from support.team import APPROVER, TOKEN_LABEL, TeamServer, event_stream, events_of, team_servers
from support.waiting import wait_until_sync

pytestmark = pytest.mark.postgres
T = 60.0  # waits on another process's state, on a loaded machine
ROOT = Path(__file__).resolve().parents[2]
ASKS = {"name": "asks", "description": "", "groups": [{
    "name": "g", "description": "", "in": {}, "out": {}, "when": "true", "parallel": True, "missing": "fail",
    "timeout": None, "on_error": "abort",
    "tools": '{"tool": "cmd_run", "args": {"command": "echo hi there"}} ;'}]}
QUIET = {"name": "quiet", "groups": [{"name": "only", "out": {"said": "string"},
                                      "tools": '{"tool": "echo", "args": {"value": "tick"}, "as": "said"} ;'}]}


@pytest.fixture(scope="module")
def database(postgres_server, seqdesk_template):
    url = postgres_server.create_database(template=seqdesk_template)
    yield url
    postgres_server.drop_database(url)


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory, database: str):
    with team_servers(tmp_path_factory.mktemp("team"), database, 3) as servers:
        yield servers


def pending(server: TeamServer, run_id: str) -> str | None:
    items = server.ok("GET", f"/api/interactions?status=pending&run_id={run_id}")
    return items[0]["request"]["interaction_id"] if items else None


def run_status(server: TeamServer, run_id: str) -> str:
    return str(server.ok("GET", f"/api/runs/{run_id}")["status"])


def decisions_of(url: str, interaction_id: str) -> list[dict]:
    from gui.pgstore.audit import read_record

    documents, _head = asyncio.run(read_record(url))
    return [d for d in documents if d is not None and d.get("interaction_id") == interaction_id]


def test_a_run_started_through_one_server_and_approved_through_another_resumes_in_the_first(three, database):
    a, b, _c = three
    a.ok("POST", "/api/sequences", ASKS)
    run_id = a.ok("POST", "/api/runs", {"sequence": "asks"})["run_id"]
    iid = wait_until_sync(lambda: pending(b, run_id), "the request in B's inbox", timeout=T)
    b.approve(iid)
    wait_until_sync(lambda: run_status(a, run_id) == "succeeded", "the run resumed in A", timeout=T)
    record = b.ok("GET", f"/api/runs/{run_id}")
    assert record["groups"][0]["tools"][0]["status"] == "succeeded"
    assert b.ok("GET", f"/api/interactions/{iid}")["status"] == "resolved"
    [decided] = decisions_of(database, iid)
    assert (decided["decision"], decided["person"], decided["token"]) == ("approved", APPROVER, TOKEN_LABEL), decided


def test_the_steps_of_a_run_in_one_server_reach_another_servers_event_stream(three):
    a, b, _c = three
    a.ok("POST", "/api/sequences", ASKS)
    with event_stream(b) as lines:
        run_id = a.ok("POST", "/api/runs", {"sequence": "asks"})["run_id"]

        def seen() -> list[str]:
            return [e["type"] for e in events_of(lines) if e.get("run_id") == run_id]

        # the inbox (its badge) hears of the request asked in A, and the steps so far
        wait_until_sync(lambda: {"interaction.created", "tool.waiting"} <= set(seen()), "A's request in B's stream",
                        timeout=T)
        iid = wait_until_sync(lambda: pending(a, run_id), "the request in A's inbox", timeout=T)
        a.approve(iid)
        wait_until_sync(lambda: "run.finished" in seen(), "the run's end in B's stream", timeout=T)
        wait_until_sync(lambda: "tool.finished" in seen(), "the tool's end in B's stream", timeout=T)
        steps = [t for t in seen() if t.startswith(("group.", "tool."))]
        assert steps == ["group.started", "tool.started", "tool.waiting", "tool.resumed", "tool.finished",
                         "group.finished"], seen()
        finished = next(e for e in events_of(lines) if e["type"] == "tool.finished" and e["run_id"] == run_id)
        assert finished["data"]["status"] == "succeeded"


def servers_of(server: TeamServer) -> dict[str, str | None]:
    """The server's MCP servers by name, with their connection's status as its tool listing says."""
    listed = {item["name"] for item in server.ok("GET", "/api/mcp/servers")}
    states = {s["name"]: s["status"] for s in server.ok("GET", "/api/tools")["servers"]}
    return {name: states.get(name) for name in listed}


async def turn_on(url: str, name: str) -> None:
    """Turn the MCP server on as a person does in Settings (the API keeps what it adds off): through the
    same door, in a fourth process's stores on the database."""
    from gui.core.door import McpServerChange
    from gui.mcp.managed import ManagedServers
    from gui.pgstore import open_pg_stores

    stores = await open_pg_stores(url)
    try:
        await ManagedServers(stores.mcp_settings).update(name, McpServerChange(enabled=True))
    finally:
        await stores.close()


def test_an_mcp_server_added_through_one_server_is_connected_by_the_others_and_removed_from_them(three, database):
    a, b, c = three
    spec = {"name": "elicit", "command": sys.executable, "args": [str(ROOT / "tests" / "mcp" / "elicit_server.py")]}
    a.ok("POST", "/api/mcp/servers", spec)
    for other in (b, c):  # kept off, as the API adds it, in every process
        wait_until_sync(lambda other=other: servers_of(other).get("elicit") == "disabled",
                        f"the MCP server listed in {other.name}", timeout=T)
    asyncio.run(turn_on(database, "elicit"))
    for other in three:
        wait_until_sync(lambda other=other: servers_of(other).get("elicit") == "connected",
                        f"the MCP server connected in {other.name}", timeout=T)
        tools = [t["name"] for t in other.ok("GET", "/api/tools")["tools"]]
        assert "elicit.order" in tools
    b.ok("PATCH", "/api/mcp/servers/elicit", {"enabled": False})
    for other in (a, c):
        wait_until_sync(lambda other=other: servers_of(other).get("elicit") == "disabled",
                        f"the MCP server turned off in {other.name}", timeout=T)
        assert not any(t["name"].startswith("elicit.") for t in other.ok("GET", "/api/tools")["tools"])
    c.ok("DELETE", "/api/mcp/servers/elicit")
    for other in (a, b):
        wait_until_sync(lambda other=other: "elicit" not in servers_of(other), f"the server gone from {other.name}",
                        timeout=T)


def test_a_schedule_fires_once_per_turn_across_three_servers(three):
    a, b, c = three
    a.ok("POST", "/api/sequences", QUIET)
    schedule = c.ok("POST", "/api/schedules", {"sequence": "quiet", "every": "10s"})
    sid = schedule["schedule_id"]

    def turns() -> list[dict]:
        found = next((s for s in b.ok("GET", "/api/schedules") if s["schedule_id"] == sid), None)
        return found["turns"] if found else []

    started = wait_until_sync(lambda: [t for t in turns() if t["outcome"] == "started"], "the first turn", timeout=T)
    run_ids = {t["run_id"] for t in started}
    for server in three:
        wait_until_sync(lambda server=server: all(run_status(server, r) == "succeeded" for r in run_ids),
                        f"the scheduled run ended, as {server.name} sees it", timeout=T)
    runs = [r for r in a.ok("GET", "/api/runs?sequence=quiet&limit=200") if r.get("schedule_id") == sid]
    recorded = {t["run_id"] for t in turns() if t["run_id"]}
    assert {r["run_id"] for r in runs} == recorded  # no process ran a turn the schedule does not record
    assert len(recorded) == len([t for t in turns() if t["outcome"] == "started"])
    c.ok("DELETE", f"/api/schedules/{sid}")


def listening_connections(url: str) -> dict[str, int]:
    """How many listening connections each process on the database holds, by its connections' name."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT application_name FROM pg_stat_activity WHERE datname = current_database() "
                            "AND application_name LIKE 'seqdesk-%-listen'").fetchall()
    found: dict[str, int] = {}
    for (name,) in rows:
        found[name.removesuffix("-listen")] = found.get(name.removesuffix("-listen"), 0) + 1
    return found


def test_each_server_hears_every_channel_on_one_listening_connection(three, database):
    a, b, c = three
    held = listening_connections(database)
    assert sorted(held.values()) == [1, 1, 1], held  # ten servers hold ten, far under PostgreSQL's 100
    a.ok("POST", "/api/sequences", ASKS)  # and on that one connection each still hears the others
    run_id = a.ok("POST", "/api/runs", {"sequence": "asks"})["run_id"]
    iid = wait_until_sync(lambda: pending(c, run_id), "the request in C's inbox", timeout=T)
    b.approve(iid)
    wait_until_sync(lambda: run_status(a, run_id) == "succeeded", "the run resumed in A", timeout=T)


def heartbeat(url: str, run_id: str) -> float | None:
    with psycopg.connect(url, autocommit=True) as conn:
        found = conn.execute("SELECT extract(epoch FROM heartbeat)::float8 FROM runs WHERE run_id = %s",
                             (run_id,)).fetchone()
    return found[0] if found else None


LEASE = 6.0


def test_a_run_of_a_killed_server_is_interrupted_by_another_once_its_lease_expires_not_before(
        tmp_path, postgres_server, seqdesk_template):
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        with team_servers(tmp_path, url, 2, SEQDESK_LEASE=str(LEASE)) as (a, b):
            a.ok("POST", "/api/sequences", ASKS)
            run_id = a.ok("POST", "/api/runs", {"sequence": "asks"})["run_id"]
            iid = wait_until_sync(lambda: pending(b, run_id), "the request in B's inbox", timeout=T)
            a.kill()
            last_beat = heartbeat(url, run_id)  # A renews no more: this is its lease's last renewal
            assert last_beat is not None
            seen: list[tuple[float, str]] = []  # (when the answer had come, the status B gave)

            def interrupted() -> bool:
                status = run_status(b, run_id)
                seen.append((time.time(), status))
                return status == "interrupted"

            wait_until_sync(interrupted, "the run taken over by B", timeout=T)
            early = [status for at, status in seen if at < last_beat + LEASE]
            assert early and set(early) == {"running"}, seen  # B left it be while A's lease lasted
            record = b.ok("GET", f"/api/runs/{run_id}")
            assert record["cause"] == "app_stopped"
            assert b.ok("GET", f"/api/interactions/{iid}")["status"] == "cancelled"
    finally:
        postgres_server.drop_database(url)


def test_a_stop_pressed_for_a_run_of_a_killed_server_ends_it_stopped_by_that_person_not_interrupted(
        tmp_path, postgres_server, seqdesk_template):
    url = postgres_server.create_database(template=seqdesk_template)
    try:
        with team_servers(tmp_path, url, 2, SEQDESK_LEASE=str(LEASE)) as (a, b):
            a.ok("POST", "/api/sequences", ASKS)
            run_id = a.ok("POST", "/api/runs", {"sequence": "asks"})["run_id"]
            iid = wait_until_sync(lambda: pending(b, run_id), "the request in B's inbox", timeout=T)
            a.kill()
            assert b.ok("POST", f"/api/runs/{run_id}/stop", {})["stopped"] is True  # claimed: A cannot carry it out
            wait_until_sync(lambda: run_status(b, run_id) != "running", "the run taken over by B", timeout=T)
            record = b.ok("GET", f"/api/runs/{run_id}")
            assert (record["status"], record["cause"]) == ("stopped", "person"), record
            assert record["stopped_by"] and record["error"] == "stopped by the user"
            tools = [t for g in record["groups"] for t in g["tools"]]
            assert tools and all(t["status"] == "cancelled" and t["cause"] == "person" for t in tools), tools
            request = b.ok("GET", f"/api/interactions/{iid}")
            assert request["status"] == "cancelled" and request["result"]["cause"] == "person", request
    finally:
        postgres_server.drop_database(url)
