"""`GET /api/hosts`: the hosts a team's workers registered as (`seqdesk worker --name node-a`) and their
states, as the Settings page lists them, and whether this app puts steps on hosts at all
(`steps_on_hosts`, `gui.wire.HostsBody`): what `seqdesk check` holds a file's `"on"` names to.

Who can send it, and what it gives them: it only reads (no host is added, started or told anything;
a host is known only once its own worker registered with the team's Temporal service). On a team
server any signed-in person may read it (authors write the names, approvers see them on cards); on
the desktop the token gate decides, as for every route, and a paired phone may read it as it reads the
tools and servers. It shows the host's name, state, when it was last seen and its worker's identity
(the machine's name and the process), never a key: a worker holds only the app's public step key,
and the private one never leaves the app (`gui.temporal.signing`).
"""

from __future__ import annotations

from fastapi.responses import Response

from gui.api.body import json_response
from gui.api.shared import EngineFrom
from gui.wire import HostsBody


async def list_hosts(engine: EngineFrom) -> Response:
    eng = engine()
    body = HostsBody(hosts=await eng.hosts(), steps_on_hosts=eng.host_book is not None)
    return json_response(body.model_dump(mode="json"))
