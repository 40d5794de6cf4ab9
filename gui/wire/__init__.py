"""What crosses HTTP between the app's API (`gui.api`) and its clients (`gui.remote`), written once
for both sides: the request and response bodies (`models`), a validation result (`results`) and the
one table between SeqDesk's exceptions and the answers' codes (`errors`).

Below both sides and free of any web framework (pydantic and the core only), so a client process
(`seqdesk run`, `seqdesk mcp`) reads it without loading FastAPI or the API's routes.
"""

from gui.wire.errors import BY_CODE, TABLE, Wire, body_of, error_from, error_in, wire_of
from gui.wire.hosts import HostsBody
from gui.wire.models import (
    ANSWERED_VIA,
    CLIENT_PID,
    RUN_BODY,
    BatchBody,
    CancelBody,
    CheckBody,
    HandOverBody,
    SavedBody,
    StartRun,
    StopBody,
)
from gui.wire.results import MAX_MESSAGE, MAX_PROBLEMS, capped, problem_from, result_from

__all__ = ["ANSWERED_VIA", "BY_CODE", "CLIENT_PID", "MAX_MESSAGE", "MAX_PROBLEMS", "RUN_BODY", "TABLE", "BatchBody",
           "CancelBody", "HandOverBody", "HostsBody",
           "CheckBody",
           "SavedBody", "StartRun", "StopBody", "Wire", "body_of", "capped", "error_from", "error_in",
           "problem_from", "result_from", "wire_of"]
