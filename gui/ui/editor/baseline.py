"""What the editor compares a draft with, and what it starts from.

A draft exists only while its content differs from what is saved: `canonical` writes a document as
the visual editor would (spacing inside `tools` and defaults aside), so the text view and the
visual view compare alike, and looking at a view is never a change. A new sequence from the example
starts with free names (`fetch-one-node-2` once the example is saved), and says which it changed.
"""

from __future__ import annotations

import json
from typing import Any

from gui.core.door import Engine
from gui.core.sequences import EXAMPLE, DslError, Renamed, load_json_text, taken_names, with_free_names
from gui.ui.editor.convert import from_document
from gui.ui.editor.draft import SequenceDraft, to_document


def text_document(text: str) -> Any:
    """The document the text view holds, or None while it is not JSON."""
    try:
        return load_json_text(text)
    except DslError:
        return None


def canonical(doc: Any) -> Any:
    """A document as the visual editor would write it (spacing inside `tools` and defaults aside)."""
    draft, _ = from_document(doc)
    return to_document(draft)[0] if draft is not None else doc


async def example_draft(engine: Engine) -> tuple[SequenceDraft, list[Renamed]]:
    """The help's example with free names (`fetch-one-node-2` once the example is saved), and which."""
    doc, renamed = with_free_names(json.loads(EXAMPLE),
                                              taken_names(await engine.sequence_trees()))
    draft, _ = from_document(doc)
    assert draft is not None
    return draft, renamed
