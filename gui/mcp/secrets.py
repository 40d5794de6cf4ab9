"""Where the MCP servers' secrets live: header values, sign-in tokens and client registrations.

Never in `mcp-servers.json`, which a person may copy, share or back up. In the operating system's
keyring when one is usable (macOS Keychain, Windows Credential Manager, the Secret Service of a
Linux desktop), else in `<data folder>/mcp-secrets.json`, which only its owner may read (0600).

"Usable" is decided once, when the store is opened: the `keyring` package picks a backend, and a
machine without one (a server, a container, a desktop whose keyring daemon is not running) gets
its "fail" backend or a chain with nothing in it; a backend that is there but errors on a first
read is not usable either. The keyring entries of one data folder are kept under a service name
holding that folder's own id (`mcp-secrets.id`), so two data folders never share a server's token
and a copied folder keeps finding its secrets.

Keys are `<server>/<kind>` (`headers`, `oauth-tokens`, `oauth-client`, `oauth-client-secret`); values are text (JSON).
"""

from __future__ import annotations

import json
import logging
import os
import secrets as _random
import stat
import threading
from pathlib import Path
from typing import Any, Protocol

from gui.atomic import atomic_write
from gui.core.errors import Internal
from gui.i18n import N_

log = logging.getLogger(__name__)

FILE_NAME = "mcp-secrets.json"
ID_FILE = "mcp-secrets.id"
SERVICE = "SeqDesk MCP"
KINDS = ("headers", "oauth-tokens", "oauth-client", "oauth-client-secret")


class SecretStoreError(Internal, RuntimeError):
    """A secret cannot be read or written (the keyring refused, the file cannot be written)."""


class SecretStore(Protocol):
    """Text values by key. `where` says, in words, where they are kept."""

    @property
    def where(self) -> str: ...

    def get(self, key: str) -> str | None: ...

    def set(self, key: str, value: str) -> None: ...

    def delete(self, key: str) -> None: ...


def key(server: str, kind: str) -> str:
    return f"{server}/{kind}"


def forget_server(store: SecretStore, server: str) -> None:
    """Every secret of one server (it was removed)."""
    for kind in KINDS:
        store.delete(key(server, kind))


class MemorySecrets:
    """For a session that keeps nothing (memory mode) and for tests."""

    where = N_("in memory, for this session only")

    def __init__(self) -> None:
        self._items: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self._items.get(key)

    def set(self, key: str, value: str) -> None:
        self._items[key] = value

    def delete(self, key: str) -> None:
        self._items.pop(key, None)


class FileSecrets:
    """A JSON object in a file only its owner may read, replaced whole on every change."""

    where = N_("in a private file in the data folder")

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._read().get(key)

    def set(self, key: str, value: str) -> None:
        with self._lock:
            items = self._read()
            if items.get(key) != value:
                items[key] = value
                self._write(items)

    def delete(self, key: str) -> None:
        with self._lock:
            items = self._read()
            if items.pop(key, None) is not None:
                self._write(items)

    def _read(self) -> dict[str, str]:
        try:
            with open(self.path, "rb") as f:
                mode = os.fstat(f.fileno()).st_mode
                raw = f.read()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise SecretStoreError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning("%s could be read by other users: made private (0600)", self.path)
            try:
                os.chmod(self.path, 0o600)
            except OSError as exc:
                raise SecretStoreError(f"cannot make {self.path} private: {exc.strerror or exc}") from None
        try:
            data: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SecretStoreError(f"{self.path} is damaged ({exc}): move it away and enter the secrets "
                                   "again (sign in again, type the header values again)") from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise SecretStoreError(f"{self.path} is not a secrets file: expected an object of texts")
        return {str(k): v for k, v in data.items()}

    def _write(self, items: dict[str, str]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, json.dumps(items, ensure_ascii=False, indent=2).encode("utf-8"))  # 0600
        except OSError as exc:
            raise SecretStoreError(f"cannot write {self.path}: {exc.strerror or exc}") from None


class KeyringSecrets:
    """The operating system's keyring, through the `keyring` package, under this folder's service name.

    The folder's id is made with the first secret kept, so a folder without secrets stays as it was."""

    def __init__(self, backend: Any, folder: Path) -> None:
        self._backend = backend
        self.folder = folder
        self._service: str | None = None

    @property
    def where(self) -> str:
        return N_("in the system keyring")

    def service(self, *, create: bool) -> str | None:
        if self._service is None:
            ident = folder_id(self.folder, create=create)
            self._service = f"{SERVICE} {ident}" if ident else None
        return self._service

    def get(self, key: str) -> str | None:
        service = self.service(create=False)
        if service is None:
            return None
        try:
            value = self._backend.get_password(service, key)
        except Exception as exc:  # every backend raises its own kinds
            raise SecretStoreError(f"the system keyring cannot be read: {exc}") from None
        return value if isinstance(value, str) else None

    def set(self, key: str, value: str) -> None:
        try:
            self._backend.set_password(self.service(create=True), key, value)
        except SecretStoreError:
            raise
        except Exception as exc:
            raise SecretStoreError(f"the system keyring refused to keep a secret: {exc}") from None

    def delete(self, key: str) -> None:
        from keyring.errors import PasswordDeleteError

        service = self.service(create=False)
        if service is None:
            return
        try:
            self._backend.delete_password(service, key)
        except PasswordDeleteError:
            pass  # not there
        except Exception as exc:
            raise SecretStoreError(f"the system keyring refused to delete a secret: {exc}") from None


def usable_keyring() -> Any | None:
    """The keyring backend `keyring` chose, if it can keep secrets here; else None.

    Its "fail" and "null" backends, and a chain with no backend in it, keep nothing; a backend that
    errors when asked for an entry that does not exist (a locked or absent daemon) is not usable."""
    try:
        import keyring
        from keyring.backends import chainer, fail, null
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception as exc:  # a broken keyring configuration
        log.info("no usable keyring: %s", exc)
        return None
    if isinstance(backend, fail.Keyring | null.Keyring):
        return None
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return None
    try:
        priority = float(backend.priority)
    except Exception:
        return None
    if priority <= 0:
        return None
    try:
        backend.get_password(SERVICE, "probe: does this keyring answer")
    except Exception as exc:
        log.info("the keyring %s does not answer (%s): secrets go to a private file", type(backend).__name__, exc)
        return None
    return backend


def folder_id(folder: Path, *, create: bool = True) -> str | None:
    """This data folder's own id, kept in the folder (made now if `create`, else None when absent)."""
    path = folder / ID_FILE
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as exc:
        raise SecretStoreError(f"cannot read {path}: {exc}") from None
    if len(text) >= 16 and text.isalnum():
        return text
    if not create:
        return None
    text = _random.token_hex(8)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(path, (text + "\n").encode("ascii"))
    except OSError as exc:
        raise SecretStoreError(f"cannot write {path}: {exc.strerror or exc}") from None
    return text


def choose_secret_store(folder: Path, *, use_keyring: bool | None = None) -> SecretStore:
    """The keyring when one is usable, else the private file in `folder` (decided now)."""
    if use_keyring is None:
        use_keyring = os.environ.get("SEQDESK_SECRETS", "").strip().lower() != "file"
    backend = usable_keyring() if use_keyring else None
    if backend is not None:
        return KeyringSecrets(backend, folder)
    return FileSecrets(folder / FILE_NAME)


class LazySecrets:
    """`choose_secret_store`, decided on first use: importing `keyring` and asking its backends
    takes about 0.1 s here (median; up to 0.5 s on a busy machine, bench_mcp_auth.py), which a
    start-up without secrets never pays.
    `open()` decides now (the runtime calls it in a worker thread right after start-up)."""

    def __init__(self, folder: Path, *, use_keyring: bool | None = None) -> None:
        self.folder = folder
        self._use_keyring = use_keyring
        self._store: SecretStore | None = None
        self._lock = threading.Lock()

    def open(self) -> SecretStore:
        with self._lock:
            if self._store is None:
                self._store = choose_secret_store(self.folder, use_keyring=self._use_keyring)
            return self._store

    @property
    def where(self) -> str:
        return self.open().where

    def get(self, key: str) -> str | None:
        return self.open().get(key)

    def set(self, key: str, value: str) -> None:
        self.open().set(key, value)

    def delete(self, key: str) -> None:
        self.open().delete(key)


def open_secret_store(folder: Path | str | None, *, use_keyring: bool | None = None) -> SecretStore:
    """The keyring when one is usable, else the private file in `folder` (decided on first use);
    memory without a folder. `use_keyring=False` forces the file (tests, or `SEQDESK_SECRETS=file`)."""
    if folder is None:
        return MemorySecrets()
    return LazySecrets(Path(folder), use_keyring=use_keyring)
