"""Where a problem sits in a sequence file, for the terminal: line and column, as the app shows them
(not a character offset), found by the same `gui.core.sequences.textpos` the editor's text view uses."""

from __future__ import annotations

from typing import Any

from gui.core.sequences import Problem, Span, place_of
from gui.i18n import N_, _


def place(text: str, problem: Problem, spans: dict[tuple[Any, ...], Span] | None = None) -> tuple[int, int]:
    """The line and column (1-based) where `problem` sits in the file's text, as the editor shows it."""
    return place_of(text, problem, spans)


# Where the core's message leaves out where to look, the terminal says where (the command that lists it).
_HINTS = {"unknown-tool": N_("seqdesk tools lists the tools available now")}


def _message(problem: Problem) -> str:
    said = problem.text(_)
    return f"{said}; {_(_HINTS[problem.code])}" if problem.code in _HINTS else said


def problem_line(text: str, problem: Problem, spans: dict[tuple[Any, ...], Span] | None = None) -> str:
    """ "groups[1].tools[0].as: slot 'x' is not declared in out (line 12, column 40) (undeclared-slot)"."""
    line, column = place(text, problem, spans)
    return _("{where}: {message} (line {line}, column {column}) ({code})").format(
        where=problem.where() or _("document"), message=_message(problem), line=line, column=column, code=problem.code)


def problem_words(problem: Problem) -> str:
    """A problem with no text to place it in (a saved sequence): `str(problem)`, in the person's language."""
    where = problem.where() or _("document")
    if problem.offset is None:
        return _("{where}: {message} ({code})").format(where=where, message=_message(problem), code=problem.code)
    return _("{where}: {message} (at character {offset}) ({code})").format(
        where=where, message=_message(problem), offset=problem.offset, code=problem.code)
