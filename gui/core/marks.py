"""`N_`: marks a sentence of the core for the catalogue (gui/i18n), without the core importing it.

The core speaks English to every surface (the CLI, the HTTP API, MCP, the records it keeps). A
sentence a screen shows in the person's language is written as `N_("… {name} …")` and filled in
with `.format()`; a screen passes its `_` as `tr` to the function that builds the sentence, so the
same template is looked up in the catalogue. `python -m gui.i18n.update` finds `N_` here as anywhere.
A template that takes parameters can be kept whole as a `Sentence` (what a `Problem` carries), worded
only when it is shown. Pure: nothing but the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

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


_FIELD = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=2048)
def _pattern(template: str) -> re.Pattern[str] | None:
    """The English of `template` as a pattern: its literal text exactly, each `{name}` any text."""
    out, seen, pos = [], set(), 0
    literal = template.replace("{{", "\0").replace("}}", "\1")
    for match in _FIELD.finditer(literal):
        out.append(re.escape(literal[pos:match.start()]))
        name = match.group(1)
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        pos = match.end()
    out.append(re.escape(literal[pos:]))
    rest = _FIELD.sub("", literal)
    if not seen or "{" in rest or "}" in rest:
        return None  # no parameter (a fixed sentence is looked up as it is), or braces it cannot read
    text = "".join(out).replace("\0", re.escape("{")).replace("\1", re.escape("}"))
    return re.compile(text, re.S)


def read_back(text: str, templates: Iterable[str], depth: int = 0) -> Sentence | None:
    """The template (of `templates`) whose English `text` is, with its parameters; None when none is.

    For words kept as English text (a run record, written long ago): a screen reads them back into
    their template to say them in its language. The template with the most fixed text wins; a
    parameter that is itself one of the templates (a reason inside a reason, or a fixed sentence such
    as "a number") is read back too.
    """
    if len(text) > 2000:  # a program's long output: never a sentence of ours, and kept from slow matching
        return None
    candidates = sorted(templates, key=lambda t: -len(_FIELD.sub("", t)))
    if depth and text in candidates and "{" not in text:
        return Sentence(text)
    for template in candidates:
        pattern = _pattern(template)
        match = pattern.fullmatch(text) if pattern is not None else None
        if match is None:
            continue
        params: list[tuple[str, object]] = []
        for name, value in match.groupdict().items():
            inner = read_back(value, candidates, depth + 1) if depth < 3 else None
            params.append((name, inner if inner is not None else value))
        found = Sentence(template, tuple(params))
        if found.render() == text:
            return found
    return None
