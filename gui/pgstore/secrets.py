"""The MCP servers' secrets in PostgreSQL, encrypted with `SEQDESK_SECRET_KEY` (Fernet), which the
server is given and which is never stored beside the data.

A team's processes share the key. `key_check` holds a known text encrypted with the key the first
process used: a process given another key refuses to start (`SecretKeyError`) instead of writing
secrets nobody else could read, or overwriting theirs. Without a key, nothing secret can be kept or
read (saying so when asked), and a database that already holds secrets refuses to start.
The values are read at open (and again when another process changed an MCP server) and kept decrypted in
memory; writes go to the database at once.
"""

from __future__ import annotations

import threading

import psycopg
from cryptography.fernet import Fernet, InvalidToken

from gui.i18n import N_
from gui.mcp.secrets import SecretStoreError
from gui.pgstore.errors import SecretKeyError

KEY_ENV = "SEQDESK_SECRET_KEY"
CHECK_TEXT = b"seqdesk secrets"


def fernet_of(key: str | None) -> Fernet | None:
    if not key:
        return None
    try:
        return Fernet(key.strip().encode())
    except (ValueError, TypeError):
        raise SecretKeyError(f"{KEY_ENV} is not a key SeqDesk can use (32 bytes in URL-safe base64): make one "
                             "with `python -c 'import cryptography.fernet as f; print(f.Fernet.generate_key())'`"
                             ) from None


class PgSecrets:
    """`SecretStore` (gui.mcp.secrets) over the `secrets` table. Blocking: the MCP code calls it
    from a worker thread, as it does the keyring."""

    where = N_("in the team database, encrypted")

    def __init__(self, url: str, fernet: Fernet | None, items: dict[str, str]) -> None:
        self._url, self._fernet, self._items = url, fernet, items
        self._lock = threading.Lock()

    @classmethod
    def load(cls, url: str, key: str | None) -> PgSecrets:
        """Check the key against the database (setting it with the first key), read every secret."""
        fernet = fernet_of(key)
        with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
            conn.execute("LOCK TABLE key_check IN EXCLUSIVE MODE")
            check = conn.execute("SELECT token FROM key_check WHERE id = 1").fetchone()
            rows = conn.execute("SELECT key, token FROM secrets").fetchall()
            if fernet is None:
                if check is not None or rows:
                    raise SecretKeyError(f"the database keeps secrets, and {KEY_ENV} is not set: start SeqDesk with "
                                         "the key the team's other processes use")
                return cls(url, None, {})
            if check is None:
                conn.execute("INSERT INTO key_check (id, token) VALUES (1, %s)", (fernet.encrypt(CHECK_TEXT).decode(),))
            else:
                try:
                    fernet.decrypt(check[0].encode())
                except InvalidToken:
                    raise SecretKeyError(f"{KEY_ENV} is not the key this database's secrets were kept with: "
                                         "SeqDesk did not start, and changed nothing") from None
            items = {name: fernet.decrypt(token.encode()).decode("utf-8") for name, token in rows}
        return cls(url, fernet, items)

    def reload(self) -> None:
        """Read every secret again: another of the team's processes may have kept or removed some."""
        if self._fernet is None:
            return
        try:
            with psycopg.connect(self._url, autocommit=True, connect_timeout=5) as conn:
                rows = conn.execute("SELECT key, token FROM secrets").fetchall()
        except psycopg.Error as exc:
            raise SecretStoreError(f"the team database's secrets cannot be read now: {exc}") from None
        items = {}
        for name, token in rows:
            try:
                items[name] = self._fernet.decrypt(token.encode()).decode("utf-8")
            except InvalidToken:
                continue  # not readable with this key (checked at open): kept out, as if not there
        with self._lock:
            self._items = items

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._items.get(key)

    def set(self, key: str, value: str) -> None:
        if self._fernet is None:
            raise SecretStoreError(f"secrets cannot be kept: start SeqDesk with {KEY_ENV} set")
        token = self._fernet.encrypt(value.encode("utf-8")).decode()
        with self._lock:
            self._run("INSERT INTO secrets (key, token) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                      "SET token = EXCLUDED.token", (key, token))
            self._items[key] = value

    def delete(self, key: str) -> None:
        with self._lock:
            self._run("DELETE FROM secrets WHERE key = %s", (key,))
            self._items.pop(key, None)

    def seal(self, value: str) -> str:
        """`value` encrypted with the team's key, to be kept elsewhere in the database (the
        notification settings' password): SecretStoreError without a key."""
        if self._fernet is None:
            raise SecretStoreError(f"secrets cannot be kept: start SeqDesk with {KEY_ENV} set")
        return self._fernet.encrypt(value.encode("utf-8")).decode()

    def unseal(self, token: str) -> str | None:
        """What `seal` encrypted; None when this process cannot read it (no key, or another key)."""
        if self._fernet is None:
            return None
        try:
            return self._fernet.decrypt(token.encode()).decode("utf-8")
        except InvalidToken:
            return None

    def _run(self, sql: str, params: tuple[str, ...]) -> None:
        try:
            with psycopg.connect(self._url, autocommit=True, connect_timeout=5) as conn:
                conn.execute(sql, params)
        except psycopg.Error as exc:
            raise SecretStoreError(f"the team database cannot keep a secret now: {exc}") from None
