"""PostgreSQL storage behind the core's store ports, for a team: several SeqDesk processes on one
database (`--store postgresql://…` / `SEQDESK_STORE`; a data folder stays TinyDB, `gui.store`).

Documents in `jsonb` with the fields the pages filter on as indexed columns; psycopg 3 (async) on a
pool; the schema versioned by yoyo-migrations and brought up to date at open (a database a newer
SeqDesk set up is refused); MCP secrets encrypted with `SEQDESK_SECRET_KEY`. Answering a request
and resuming a run are conditional writes, so across processes exactly one wins; each process hears
of the requests the others ask and end (LISTEN/NOTIFY); running runs hold leases, and a run is
interrupted only once its process is gone; one process at a time runs the schedules.
"""

from gui.pgstore.errors import DatabaseNewerError, DatabaseUnreachable, SecretKeyError, WriteConflict
from gui.pgstore.leader import Leader
from gui.pgstore.leases import LEASE, Leases, take_over_expired
from gui.pgstore.open import PgStores, open_people_store, open_pg_stores
from gui.pgstore.pool import check_reachable, is_database_url, where
from gui.pgstore.run_events import announce_run

__all__ = ["LEASE", "DatabaseNewerError", "DatabaseUnreachable", "Leader", "Leases", "PgStores", "SecretKeyError",
           "WriteConflict", "announce_run", "check_reachable", "is_database_url", "open_people_store", "open_pg_stores",
           "take_over_expired", "where"]
