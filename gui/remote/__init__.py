"""The door (`gui.core.door.Operations`) over a running app's HTTP API.

When the app holds the data folder (one process per folder), the CLI and `seqdesk mcp` reach it
through `RemoteEngine`: runs they start appear in the app, and their approvals wait in its inbox.
`remote_for` finds the app that holds a folder; `load_transport` loads the client's transport while
a door waits for the app it started.
"""

from gui.remote.engine import RemoteEngine
from gui.remote.folder import remote_for
from gui.remote.transport import load_transport

__all__ = ["RemoteEngine", "load_transport", "remote_for"]
