"""Problems found in a sequence, and the one error type the DSL raises.

A `Problem` says where (a pydantic-style `loc`), what (a stable `code`) and what to write instead
(`message`); for text fields (`tools`, `when`, a whole document) it also carries the character
`offset` inside that text. The validator collects every problem; it never stops at the first.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Loc = tuple[str | int, ...]


class Problem(BaseModel):
    """One error or warning, located precisely enough for an editor to point at it."""

    model_config = ConfigDict(frozen=True)

    loc: Loc
    code: str
    message: str
    offset: int | None = None
    severity: Literal["error", "warning"] = "error"

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


def format_loc(loc: Loc) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


class DslError(Exception):
    """Raised by the parser and validator, and by nothing else in the DSL: it carries every problem."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems) or "invalid sequence")

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]
