"""Sequence documents outside the store: what `list` shows of one, how `create` reads `groups` or
`file`, and the not-found error.

Pure helpers every surface may use (the API's answers, the MCP server), so none of them needs the
catalog itself. The view of the tools a document is checked against is the tools' own
(`gui.core.tools.catalog`).
"""

from __future__ import annotations

from typing import Any

from gui.core.errors import NotFound
from gui.core.marks import N_
from gui.core.sequences import DslError, Sequence, Signature, problem, read_document_file, signature_of


class NotFoundError(NotFound):
    """No saved sequence or group has that name (or no run that id)."""

    code = "no-such-name"


def document_from(name: str | None, description: str, groups: Any, file: str | None) -> Any:
    """The document `create` saves, from `groups` or from `file`: exactly one of them."""
    if (groups is None) == (file is None):
        raise DslError([problem(("groups",), "groups-and-file", N_("give either groups or file, exactly one of them"))])
    if file is not None:
        doc = load_document_file(file)
        return {**doc, "name": name} if name is not None and isinstance(doc, dict) else doc
    return {"name": name, "description": description, "groups": groups}


def load_document_file(path: str) -> Any:
    from gui.core.sequences import load_json_text

    try:
        text = read_document_file(path, ("file",))
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise DslError([problem(("file",), "bad-file", N_("cannot read the file {path}: {reason}"), path=path,
                                reason=str(reason))]) from None
    return load_json_text(text, ("file",))


def summary(sequence: Sequence) -> dict[str, Any]:
    """What `list` shows for one sequence: its name, description and signature."""
    sig: Signature = signature_of(sequence)
    return {
        "name": sequence.name,
        "description": sequence.description,
        "groups": [g.name for g in sequence.groups],
        "signature": {"inputs": {k: v.value for k, v in sig.inputs.items()},
                      "outputs": {k: v.value for k, v in sig.outputs.items()}},
    }


