"""The app that holds a data folder, found by the endpoint file it writes there
(`gui.second_launch.read_endpoint`): where it listens, and whether a caller needs its token.
"""

from __future__ import annotations

from pathlib import Path

from gui.core.errors import Refused
from gui.remote.engine import RemoteEngine
from gui.second_launch import read_endpoint


def remote_for(folder: Path, token: str | None, *, answered_here: bool = False) -> RemoteEngine | None:
    """The client for the app that holds `folder`, if one does; Refused when it needs a token the
    caller does not have. `answered_here`: the caller answers its runs' requests when the app was
    started in the background for a program (see `RemoteEngine`)."""
    endpoint = read_endpoint(folder)
    if endpoint is None:
        return None
    if endpoint.get("token_required") and not token:
        raise Refused(f"the SeqDesk app at {endpoint['url']} holds this data folder and was started with "
                      "a token: set SEQDESK_TOKEN to that token to reach it")
    return RemoteEngine(endpoint["url"], token, answered_here=answered_here and bool(endpoint.get("background")))
