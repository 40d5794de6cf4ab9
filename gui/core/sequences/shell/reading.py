"""What reading shell text gives: the `Place` of each input in it, and its commands as words.

`gui.core.sequences.shell.lexer` makes a `Reading`; `gui.core.sequences.shell.inputs` decides from each place how an
input goes in, and `gui.core.sequences.shell.programs` reads the commands' words for programs that run an
input as code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

# Words after which the next word is again the start of a command.
RESERVED = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"})
# Commands that can define an alias, which changes how every line read after them is split into
# words (`alias q="printf '"` makes the next `q $args.x'` quoted around the input).
_ALIASING = frozenset({"alias", "eval", ".", "source"})
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class Place(StrEnum):
    """Where a hole sits, as the shell reads the text around it."""

    WORD = "word"  # between words or glued to unquoted text: it becomes (part of) a word
    DOUBLE_QUOTED = "double-quoted"  # inside "…"
    SINGLE_QUOTED = "single-quoted"  # inside '…'
    DOLLAR_QUOTED = "dollar-quoted"  # inside $'…'
    AFTER_BACKSLASH = "after-backslash"  # right after a \ that escapes what follows
    BACKQUOTED = "backquoted"  # inside `…`
    PARAMETER = "parameter"  # inside ${…}
    ARITHMETIC = "arithmetic"  # inside $((…)), bash's ((…)) and $[…], or an index a[…]
    HEREDOC = "heredoc"  # in the body of a here-document
    HEREDOC_DELIMITER = "heredoc-delimiter"  # in the word after <<
    COMMENT = "comment"  # after a #
    UNCLEAR = "unclear"  # after text that shells read differently


@dataclass
class Word:
    """One word of a command. `text`: the word after quote removal when it is plain text, None when
    it holds an expansion or a hole; `head`: the plain text before the first of those; `holes`: every
    hole inside it (also inside a `$(…)` within it: that output becomes part of the word)."""

    text: str | None
    head: str
    holes: frozenset[int]


Command = list[Word]
Pipeline = list[Command]  # commands joined by `|`, each reading what the one before printed


@dataclass
class Reading:
    places: dict[int, Place] = field(default_factory=dict)
    pipelines: list[Pipeline] = field(default_factory=list)



def may_alias(command: Command) -> bool:
    """Whether `command` may define an alias: `alias`, `eval`, `.`, `source` (also after `command`
    or `builtin`), or a name that is not plain text (`$x q=…`, where x may be "alias")."""
    words = [w for w in command if w.text not in RESERVED]
    while words and ASSIGNMENT.match(words[0].head):
        words = words[1:]
    while words and words[0].text in ("command", "builtin"):
        words = words[1:]
    return bool(words) and (words[0].text is None or words[0].text in _ALIASING)
