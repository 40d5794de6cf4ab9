"""Where SeqDesk keeps its data.

One folder holds every database file and the instance lock: the platform's user data folder, or
`SEQDESK_DATA` when set (tests, a second independent instance, a portable install). It is checked
once at start-up, by creating and removing a file in it, so a read-only or mistyped folder fails
with a sentence that says what to do instead of an `OSError` on the first save.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import platformdirs

from gui.store.errors import StoreError

ENV_VAR = "SEQDESK_DATA"
APP_NAME = "SeqDesk"


class DataFolderError(StoreError):
    """The data folder cannot be created or written."""

    code = "data-folder-unusable"

    def __init__(self, path: Path, reason: str, from_env: bool) -> None:
        self.path = path
        self.reason = reason
        hint = (
            f"Check {ENV_VAR}, or unset it to use the default folder."
            if from_env
            else f"Set {ENV_VAR} to a folder you can write to."
        )
        super().__init__(f"Cannot use the data folder {path}: {reason}. {hint}")


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The data folder, created if missing; raises `DataFolderError` if it cannot be used."""
    env = os.environ if environ is None else environ
    raw = env.get(ENV_VAR, "").strip()
    from_env = bool(raw)
    path = Path(raw).expanduser() if from_env else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path = path.absolute()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError as err:
        raise DataFolderError(path, "it exists and is not a folder", from_env) from err
    except OSError as err:
        raise DataFolderError(path, f"it cannot be created ({err.strerror or err})", from_env) from err
    if not path.is_dir():
        raise DataFolderError(path, "it exists and is not a folder", from_env)
    try:
        fd, probe = tempfile.mkstemp(prefix=".seqdesk-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise DataFolderError(path, f"it is not writable ({err.strerror or err})", from_env) from err
    return path
