"""The sequence `seqdesk run` names: a file's text (`read_file`, `read_target`; `seqdesk check` reads
its file so too), and whether the app's API can carry it (`carried`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gui.i18n import _

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def read_file(path: str) -> str:
    """A sequence file's text; Unreadable saying why it cannot be read."""
    from gui.core.errors import Unreadable

    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise Unreadable(_("cannot read {path}: no such file").format(path=path)) from None
    except IsADirectoryError:
        raise Unreadable(_("cannot read {path}: it is a folder").format(path=path)) from None
    except UnicodeDecodeError:
        raise Unreadable(_("cannot read {path}: it is not UTF-8 text").format(path=path)) from None
    except OSError as exc:
        raise Unreadable(_("cannot read {path}: {problem}").format(
            path=path, problem=exc.strerror or exc)) from None


def read_target(target: str) -> str | None:
    """The file's text when `target` names a file; None when it is a saved sequence's name."""
    if Path(target).suffix != ".json" and not Path(target).exists():
        return None
    return read_file(target)


def carried(run_args: dict[str, Any], text: str | None) -> bool:
    """Whether the app's API can carry this run's args and document: it refuses text that is not valid
    Unicode (a lone surrogate, `\\ud800`), so such a run goes on in this process, as it always did."""
    if text is not None and _SURROGATE_ESCAPE.search(text) is not None:
        return False
    if not run_args:
        return True
    from gui.core.sequences import surrogate_loc

    return surrogate_loc(run_args) is None
