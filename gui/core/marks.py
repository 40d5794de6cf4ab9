"""`N_`: marks a sentence of the core for the catalogue (gui/i18n), without the core importing it.

The core speaks English to every surface (the CLI, the HTTP API, MCP, the records it keeps). A
sentence a screen shows in the person's language is written as `N_("… {name} …")` and filled in
with `.format()`; a screen passes its `_` as `tr` to the function that builds the sentence, so the
same template is looked up in the catalogue. `python -m gui.i18n.update` finds `N_` here as anywhere.
A template that takes parameters can be kept whole as a `Sentence` (what a `Problem` carries), worded
only when it is shown. Pure: nothing but the standard library.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Translate = Callable[[str], str]


def N_(message: str) -> str:  # noqa: N802 - the gettext name the extractor looks for
    return message


def as_written(message: str) -> str:
    """The `tr` of the core's own surfaces: the English as written."""
    return message


@dataclass(frozen=True)
class Sentence:
    """A marked template and its parameters, kept apart so a screen can word it in its language.

    `render()` is the English as written (what `Problem.message`, the API and MCP carry);
    `render(tr)` looks the template up with a screen's `_` first. A parameter that is itself a
    `Sentence` (a reason inside a reason) is rendered with the same `tr`; any other parameter is
    data (a name, a path, a character) and goes in as it is. The template is always filled with
    `.format()`, so a literal brace in it is written `{{` / `}}`.
    """

    template: str
    params: tuple[tuple[str, object], ...] = ()
    literal: bool = False  # a name looked up whole (a tool's title), never filled in

    def render(self, tr: Translate = as_written) -> str:
        if self.literal:
            return tr(self.template)
        values = {key: value.render(tr) if isinstance(value, Sentence) else value for key, value in self.params}
        try:
            return tr(self.template).format(**values)
        except (KeyError, IndexError, ValueError, AttributeError):  # a translation that lost a placeholder
            pass
        try:
            return self.template.format(**values)  # the English
        except (KeyError, IndexError, ValueError, AttributeError):  # not a template at all: as it is
            return self.template

    def __str__(self) -> str:
        return self.render()


def sentence(template: str, **params: object) -> Sentence:
    """`sentence(N_("… {name} …"), name=name)`: the template with its parameters, not yet worded."""
    return Sentence(template, tuple(params.items()))


def term(text: str) -> Sentence:
    """A name of the product's own (a built-in tool's title): in the catalogue's words when it holds
    them, else as written; braces in it are text."""
    return Sentence(text, literal=True)


def verbatim(text: str) -> Sentence:
    """Text that has no template (a library's own message): shown as it is in every language."""
    return Sentence("{text}", (("text", text),))
