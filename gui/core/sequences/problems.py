"""Problems found in a sequence, and the one error type the DSL raises.

A `Problem` says where (a pydantic-style `loc`), what (a stable `code`) and what to write instead
(`message`); for text fields (`tools`, `when`, a whole document) it also carries the character
`offset` inside that text. The validator collects every problem; it never stops at the first.

`message` is English, always (the API, MCP, the JSON of `seqdesk check` carry it); `words` keeps the
marked template and its parameters (gui/core/marks.py) so a screen can say it in its language with
`text(_)`. A problem built with `problem(...)` has both; one built from plain text has no `words`
and reads the same in every language.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from gui.core.errors import Invalid
from gui.core.marks import Sentence, Translate, as_written, sentence

Loc = tuple[str | int, ...]


class Problem(BaseModel):
    """One error or warning, located precisely enough for an editor to point at it."""

    model_config = ConfigDict(frozen=True)

    loc: Loc
    code: str
    message: str
    offset: int | None = None
    severity: Literal["error", "warning"] = "error"
    words: Annotated[Sentence | None, SkipValidation] = Field(default=None, exclude=True, repr=False)

    def text(self, tr: Translate = as_written) -> str:
        """The message in the words of `tr` (a screen's `_`); English (`message`) without one."""
        return self.words.render(tr) if self.words is not None else self.message

    def where(self) -> str:
        """`groups[1].tools[0].as`: the loc written as a path a person can read."""
        return format_loc(self.loc)

    def __str__(self) -> str:
        where = self.where() or "document"
        at = f" (at character {self.offset})" if self.offset is not None else ""
        return f"{where}: {self.message}{at} ({self.code})"

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"loc": list(self.loc), "code": self.code, "message": self.message}
        if self.offset is not None:
            data["offset"] = self.offset
        return data


def problem(loc: Loc, code: str, message: str | Sentence, *, offset: int | None = None,
            severity: Literal["error", "warning"] = "error", **params: object) -> Problem:
    """A problem from a marked template (`N_("… {name} …")`, filled with `params`) or a `Sentence`."""
    words = _filled(message, params)
    return Problem(loc=loc, code=code, message=words.render(), offset=offset, severity=severity, words=words)


def _filled(message: str | Sentence, params: dict[str, object]) -> Sentence:
    return message if isinstance(message, Sentence) else sentence(message, **params)


def format_loc(loc: Loc) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


class DslError(Invalid):
    """Raised by the parser and validator, and by nothing else in the DSL: it carries every problem."""

    code = "dsl-error"

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems) or "invalid sequence")

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


class Findings:
    """The problems found so far in one document, in the order found: what the validator's checks
    (the document's, and its groups' tools', `validator_tools.ToolChecks`) report into."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def error(self, loc: Loc, code: str, message: str | Sentence, offset: int | None = None,
              **params: object) -> None:
        """`message`: a marked template (`N_`) filled with `params`, or a `Sentence` already made."""
        self.problems.append(problem(loc, code, _filled(message, params), offset=offset))

    def warn(self, loc: Loc, code: str, message: str | Sentence, offset: int | None = None,
             **params: object) -> None:
        self.problems.append(problem(loc, code, _filled(message, params), offset=offset, severity="warning"))

    def extend(self, problems: list[Problem]) -> None:
        self.problems.extend(problems)

