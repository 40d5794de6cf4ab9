"""The app's own small settings files in the data folder: what a person chose that must outlive
the browser (dark mode, notification channels, phone access and the paired phones).

Each is one JSON object in `<data folder>/<name>.json`, replaced atomically (a crash leaves the old
file or the new one, never half of one) and readable by this user only (0600: one holds an SMTP
password, another the paired phones' session hashes). Without a data folder (in memory) they live
in a dict and are gone when the app closes. A damaged file is moved aside and reads as empty, with
a sentence saying so in `problem`. On a team's database the same objects are rows of a table instead
(`gui.pgstore.preferences`): both are `Prefs`, and the runtime hands out the right one
(`Runtime.preferences`).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Protocol

from gui.atomic import atomic_write, keep_aside


class Prefs(Protocol):
    """One small settings object a person chose, kept by the app: read whole, changed by keys."""

    problem: str | None  # a sentence when what was kept could not be read (it starts empty)

    def read(self) -> dict[str, Any]:
        """A copy of the object (callers may change it freely)."""
        ...

    def update(self, **values: Any) -> dict[str, Any]:
        """Set these keys (None removes one) and keep it; returns the whole object."""
        ...

    def replace(self, data: dict[str, Any]) -> None: ...


class PrefsFile:
    """One JSON object kept on disk (or in memory when `folder` is None)."""

    def __init__(self, folder: Path | None, name: str) -> None:
        self.path = folder / f"{name}.json" if folder is not None else None
        self.problem: str | None = None
        self._lock = threading.Lock()
        self._memory: dict[str, Any] = {}
        self._cache: dict[str, Any] | None = None

    def read(self) -> dict[str, Any]:
        with self._lock:
            return json.loads(json.dumps(self._load()))  # a copy: callers may change it freely

    def update(self, **values: Any) -> dict[str, Any]:
        """Set these keys (None removes one) and write the file; returns the whole object."""
        with self._lock:
            data = dict(self._load())
            for key, value in values.items():
                if value is None:
                    data.pop(key, None)
                else:
                    data[key] = value
            self._write(data)
            return json.loads(json.dumps(data))

    def replace(self, data: dict[str, Any]) -> None:
        with self._lock:
            self._write(dict(data))

    def _load(self) -> dict[str, Any]:
        if self.path is None:
            return self._memory
        if self._cache is not None:
            return self._cache
        data: dict[str, Any] = {}
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raw = b""
        if raw:
            try:
                loaded = json.loads(raw)
                if not isinstance(loaded, dict):
                    raise ValueError("not a JSON object")
                data = loaded
            except ValueError:
                aside = keep_aside(self.path)
                self.problem = f"{self.path.name} was damaged and was moved aside to {aside.name}; it starts empty."
        self._cache = data
        return data

    def _write(self, data: dict[str, Any]) -> None:
        if self.path is None:
            self._memory = data
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, json.dumps(data, indent=1, ensure_ascii=False).encode("utf-8"))
        try:
            os.chmod(self.path, 0o600)
        except OSError:
            pass
        self._cache = data
