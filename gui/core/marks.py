"""`N_`: marks a sentence of the core for the catalogue (gui/i18n), without the core importing it.

The core speaks English to every surface (the CLI, the HTTP API, MCP, the records it keeps). A
sentence a screen shows in the person's language is written as `N_("… {name} …")` and filled in
with `.format()`; a screen passes its `_` as `tr` to the function that builds the sentence, so the
same template is looked up in the catalogue. `python -m gui.i18n.update` finds `N_` here as anywhere.
Pure: no import at all.
"""

from __future__ import annotations

from collections.abc import Callable

Translate = Callable[[str], str]


def N_(message: str) -> str:  # noqa: N802 - the gettext name the extractor looks for
    return message


def as_written(message: str) -> str:
    """The `tr` of the core's own surfaces: the English as written."""
    return message
