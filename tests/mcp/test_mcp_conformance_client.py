"""The official conformance suite's client scenarios (`@modelcontextprotocol/conformance`, npm), played
against SeqDesk's own connection class by `conformance_client.py`: sign-in when any request is refused,
scope step-up with one try per scope, a moved authorization server, pre-registered clients with HTTP
Basic or the form body, and the rest of its authorization scenarios.

The suite (verified with 0.2.0-alpha.12) needs Node 22. Give the command that starts it in
MCP_CONFORMANCE_CLI (for example `node22 node_modules/@modelcontextprotocol/conformance/dist/index.js`;
`.ci/run` installs both and sets it); without it these are skipped, and under CI=true they fail.

The suite starts the client once per scenario; the client is forked (tests/support/fork_door.py) from one
`conformance_client.py --serve` per module, which has imported SeqDesk's connection and the MCP SDK once:
~1.5 s of CPU per scenario less, the client still a process of its own.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support import fork_door
from support.waiting import wait_until_sync

CLIENT = Path(__file__).with_name("conformance_client.py")
SCENARIOS = [
    "initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", "request-metadata",
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/basic-cimd",
    "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
    "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none", "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch", "auth/offline-access-scope",
    "auth/offline-access-not-supported", "auth/authorization-server-migration", "auth/iss-supported",
    "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected",
    "auth/iss-normalized", "auth/metadata-issuer-mismatch", "http-standard-headers", "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
]

# SeqDesk is a desktop app: it publishes no client metadata document, so it registers instead of using a
# URL-based client id (CIMD), which the suite warns of.
WARNED = {"auth/basic-cimd"}


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}


@pytest.fixture(scope="module")
def client_command(tmp_path_factory):
    """The command the suite runs for the client: a knock on the fork server of conformance_client.py."""
    door = tmp_path_factory.mktemp("door") / "client.sock"
    server = subprocess.Popen([sys.executable, str(CLIENT), "--serve", str(door)], env=_env(), start_new_session=True)
    try:
        wait_until_sync(lambda: door.exists() or server.poll() is not None, "the client's fork server to listen")
        assert server.poll() is None, f"the client's fork server ended with {server.returncode}"
        yield " ".join(shlex.quote(word) for word in (sys.executable, "-I", "-S", fork_door.__file__, str(door)))
    finally:
        os.killpg(server.pid, signal.SIGKILL)  # the server and any client it forked still running
        server.wait(30)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_conformance_scenario_passes_through_seqdesks_connection(scenario, conformance_cli, client_command,
                                                                     tmp_path):
    done = subprocess.run([*conformance_cli, "client", "--scenario", scenario, "--command", client_command,
                           "--timeout", "90000", "-o", str(tmp_path)], env=_env(), capture_output=True, text=True,
                          timeout=240)
    said = done.stdout + done.stderr
    if scenario in WARNED:  # every check passes; the suite's warning fails the run
        assert re.search(r"Passed: (\d+)/\1, 0 failed, 1 warnings", said), said[-4000:]
        return
    assert done.returncode == 0 and "OVERALL: PASSED" in said, said[-4000:]
