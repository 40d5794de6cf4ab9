"""The hosts list on the wire (`GET /api/hosts`), both ways: the hosts a team's workers registered
as, with their states, and whether the app puts steps on hosts at all (`steps_on_hosts`: false when it
runs sequences in its own process, where no name is a host's)."""

from __future__ import annotations

from pydantic import BaseModel

from gui.core.runs import HostInfo


class HostsBody(BaseModel):
    hosts: list[HostInfo]
    steps_on_hosts: bool
