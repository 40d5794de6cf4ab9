"""The database's schema, versioned by yoyo-migrations (plain SQL files in `migrations/`), brought up
to date when a store opens. Several processes opening at once take yoyo's lock in turn. A database
that has a migration this SeqDesk does not know was migrated by a newer one: it is left untouched,
and opening refuses with a sentence, rather than writing documents the newer schema does not expect.
"""

from __future__ import annotations

from pathlib import Path

from gui.pgstore.errors import DatabaseNewerError

MIGRATIONS = Path(__file__).with_name("migrations")


def yoyo_url(url: str) -> str:
    """The same database as yoyo names it (its psycopg 3 backend)."""
    scheme, rest = url.split("://", 1)
    return f"postgresql+psycopg://{rest}" if scheme in ("postgres", "postgresql") else url


def migrate(url: str) -> list[str]:
    """Apply the migrations the database lacks (blocking: run it off the event loop); their ids."""
    from yoyo import get_backend, read_migrations

    backend = get_backend(yoyo_url(url))
    try:
        migrations = read_migrations(str(MIGRATIONS))
        with backend.lock():
            applied = set(backend.get_applied_migration_hashes())
            unknown = applied - {m.hash for m in migrations}
            if unknown:
                raise DatabaseNewerError(
                    f"the database was set up by a newer SeqDesk ({len(unknown)} change(s) of its schema this "
                    "version does not know): update SeqDesk, or point it at another database")
            missing = backend.to_apply(migrations)
            backend.apply_migrations(missing)
            return [m.id for m in missing]
    finally:
        backend.connection.close()
