"""PostgreSQL storage behind the core's store ports, for a team: several SeqDesk processes on one
database (`--store postgresql://…` / `SEQDESK_STORE`; a data folder stays TinyDB, `gui.store`).

Documents in `jsonb` with the fields the pages filter on as indexed columns; psycopg 3 (async) on a
pool; the schema versioned by yoyo-migrations and brought up to date at open (a database a newer
SeqDesk set up is refused); MCP secrets encrypted with `SEQDESK_SECRET_KEY`. Answering a request
and resuming a run are conditional writes, so across processes exactly one wins; each process hears
of the requests the others ask and end and of every other event (LISTEN/NOTIFY); running runs hold leases, and a run is
interrupted only once its process is gone (a process restarted under its stable name, `gui.pgstore.names`,
holds again those it claims), and fenced (a process that lost its lease writes nothing
more of the run); a Stop pressed in any process reaches the one that runs the run; one process at a
time runs the schedules. The record of decisions is a chain only appended to, one append at a time
across processes, with its head kept apart (`PgAuditLog`); preferences are rows of a table, the
notification settings one of them (its secret parts encrypted), and a change of one reaches every
process at once. A process hears all of this on one listening connection.
"""

from gui.pgstore.errors import (
    DatabaseNewerError,
    DatabaseUnreachable,
    ProcessNameTaken,
    SecretKeyError,
    WriteConflict,
)
from gui.pgstore.event_relay import EVENTS, EventRelay
from gui.pgstore.leader import Leader
from gui.pgstore.leases import LEASE, Leases, take_over_expired
from gui.pgstore.mcp_settings import MCP_SERVERS
from gui.pgstore.modes import RULES
from gui.pgstore.open import CHANNELS, PgStores, open_people_store, open_pg_stores
from gui.pgstore.pool import check_reachable, is_database_url, where
from gui.pgstore.run_events import announce_run
from gui.pgstore.sign_in_failures import PgSignInThrottle
from gui.pgstore.stops import PgStopRequests, StopsHeard

__all__ = ["CHANNELS", "EVENTS", "LEASE", "MCP_SERVERS", "RULES", "DatabaseNewerError", "DatabaseUnreachable",
           "EventRelay", "Leader", "Leases", "PgSignInThrottle", "ProcessNameTaken", "PgStopRequests", "PgStores",
           "SecretKeyError",
           "StopsHeard", "WriteConflict", "announce_run", "check_reachable", "is_database_url", "open_people_store",
           "open_pg_stores",
           "take_over_expired", "where"]
