"""Where an input lands in shell text: a small lexer of POSIX sh, as dash and bash read it.

An input in `cmd_run`'s command is put in before the shell reads the command, so what its value
means depends on where it sits: between words, inside "…", inside '…', `…`, ${…}, $((…)), a
here-document or a comment. `read_shell` reads a template whose inputs are holes and says, for
each hole, its `Place`, and gives the simple commands (their words) so that `gui.core.sequences.shell.programs`
can tell which words a program runs as code. Why not `shlex` or a regex: neither knows `$(…)`,
backquotes, here-documents or comments; why not `bashlex`: it parses bash only, gives no place for
text inside quotes, and has had no release since 2023.

It fails closed: where dash and bash read the same text differently (a `'` inside `${…}` inside
"…", `\\'` inside `$'…'`, a here-document begun inside `$(…)` that ends before its line does, a
here-document whose delimiter holds an input), every hole after that point is `UNCLEAR`; so is every
hole on a line after a command that may define an alias (`alias`, `eval`, `.`), which would change
how that line is split into words. Bash's arithmetic (`((…))`, `$[…]`, an index `a[…]`, `a=(…)`)
is read as arithmetic, though dash has none of it: bash would run `a[$(cmd)]` there, quoted or not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gui.core.sequences.shell.heredoc import HereDoc, body_end, unquote
from gui.core.sequences.shell.reading import RESERVED, Command, Pipeline, Place, Reading, Word, may_alias

HOLE = "\ufffc"  # stands for an input in the text read (it is never special to a shell)
_BLANK = " \t"
_ENDS_WORD = " \t\n;&|()<>"
_ENDS_INDEX = "\n;&|()<>"  # bash reads `a[ 1 ]=x` as one word: blanks do not end an index
# Longest first: the operator at a place is the longest that fits.
_OPERATORS = (";;&", "<<<", "<<-", "&&", "||", ";;", ";&", "<<", ">>", "<&", ">&", "<>", ">|",
              ";", "&", "|", "<", ">")
_REDIRECTIONS = frozenset({"<<<", ">>", "<&", ">&", "<>", ">|", "<", ">"})
_NAME_IS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=\Z")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass
class _Case:
    """A `case … in … esac` being read: what comes next (the subject, `in`, a pattern, commands)."""

    state: str = "subject"
    pattern_words: int = 0


class _WordBuilder:
    def __init__(self) -> None:
        self.chars: list[str] = []
        self.head: str | None = None
        self.holes: set[int] = set()

    def dynamic(self) -> None:
        if self.head is None:
            self.head = "".join(self.chars)

    def word(self) -> Word:
        text = "".join(self.chars)
        return Word(text if self.head is None else None, text if self.head is None else self.head,
                    frozenset(self.holes))


def read_shell(pieces: Sequence[str | int]) -> Reading:
    """Read `pieces` (text, and holes numbered by int) as sh would read them with the holes filled.
    Text nested too deeply to read (hundreds of `$(`) leaves every hole `UNCLEAR`."""
    try:
        return _Lexer(pieces).read()
    except RecursionError:
        return Reading(places={piece: Place.UNCLEAR for piece in pieces if isinstance(piece, int)})


class _Lexer:
    def __init__(self, pieces: Sequence[str | int]) -> None:
        parts: list[str] = []
        self.holes: dict[int, int] = {}
        at = 0
        for piece in pieces:
            if isinstance(piece, int):
                self.holes[at] = piece
                parts.append(HOLE)
                at += 1
            else:
                parts.append(piece)
                at += len(piece)
        self.src = "".join(parts)
        self.pos = 0
        self.depth = 0
        self.unclear = False
        self.aliasing = False  # a command that may define an alias has been read
        self.refusing: list[Place] = []  # the constructs around `pos` where no input may go
        self.words: list[_WordBuilder] = []  # the words being read around `pos`
        self.pending: list[HereDoc] = []
        self.reading = Reading()

    def read(self) -> Reading:
        self._commands(None)
        return self.reading

    # -- holes -------------------------------------------------------------------------------------
    def _hole(self, pos: int) -> bool:
        return pos in self.holes

    def _mark(self, pos: int, place: Place) -> None:
        hole = self.holes[pos]
        if self.unclear:
            place = Place.UNCLEAR
        elif self.refusing:
            place = self.refusing[0]
        self.reading.places[hole] = place
        for word in self.words:
            word.holes.add(hole)
            word.dynamic()

    def _peek(self, offset: int = 0) -> str:
        at = self.pos + offset
        return self.src[at] if at < len(self.src) else ""

    # -- commands ----------------------------------------------------------------------------------
    def _commands(self, closer: str | None) -> None:
        """Commands up to `closer` (")" closes a `$(…)`) or the end of the text."""
        self.depth += 1
        depth = self.depth
        pipeline: Pipeline = []
        command: Command = []
        parens = 0
        cases: list[_Case] = []
        expect = ""  # "redirect" / "heredoc" / "heredoc-" : what the next word is

        def end(piped: bool = False) -> None:
            nonlocal command, pipeline
            if command:
                pipeline.append(command)
                self.aliasing = self.aliasing or may_alias(command)
            command = []
            if not piped and pipeline:
                self.reading.pipelines.append(pipeline)
                pipeline = []

        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if ch in _BLANK and not self._hole(self.pos):
                self.pos += 1
            elif ch == "\\" and self._peek(1) == "\n" and not self._hole(self.pos + 1):
                self.pos += 2  # a line continued
            elif ch == "\n" and not self._hole(self.pos):
                self.pos += 1
                end()
                self._bodies(depth)
                self.unclear = self.unclear or self.aliasing  # the lines after an alias may read otherwise
            elif ch == "#" and not self._hole(self.pos):
                self._comment()
            elif ch == ")" and not self._hole(self.pos):
                self.pos += 1
                if cases and cases[-1].state == "pattern":
                    cases[-1].state = "body"
                    end()
                elif parens:
                    parens -= 1
                    end()
                elif closer == ")":
                    end()
                    break
                else:
                    end()  # a stray ")": the shell refuses the whole text
            elif ch == "(" and not self._hole(self.pos):
                if cases and cases[-1].state == "pattern" and cases[-1].pattern_words == 0:
                    self.pos += 1
                elif src.startswith("((", self.pos) and all(w.text in RESERVED for w in command):
                    self._arithmetic(2)  # bash's `(( … ))`, which evaluates what is inside
                elif command and _NAME_IS.match(src[self.pos - len(command[-1].head):self.pos]):
                    self.pos += 1  # bash's `a=( [index]=value … )`: its indexes are arithmetic
                    self.refusing.append(Place.ARITHMETIC)
                    self._commands(")")
                    self.refusing.pop()
                else:
                    self.pos += 1
                    parens += 1
                    end()
            elif ch in ";&|<>" and not self._hole(self.pos):
                op = next(o for o in _OPERATORS if src.startswith(o, self.pos))
                self.pos += len(op)
                in_pattern = bool(cases) and cases[-1].state == "pattern"
                if op in (";;", ";&", ";;&") and cases and cases[-1].state == "body":
                    cases[-1].state, cases[-1].pattern_words = "pattern", 0
                    end()
                elif op == "|" and in_pattern:
                    pass  # `a|b)`: one more pattern
                elif op == "|":
                    end(piped=True)
                elif op in ("<<", "<<-"):
                    expect = "heredoc-" if op == "<<-" else "heredoc"
                elif op in _REDIRECTIONS:
                    expect = "redirect"
                else:
                    end()
            else:
                start = self.pos
                word = self._word()
                if expect.startswith("heredoc"):
                    self._heredoc(start, word, strip_tabs=expect == "heredoc-", depth=depth)
                elif expect == "redirect":
                    pass  # the file of a redirection: not a word of the command
                elif self._io_number(word):
                    continue  # `2` of `2>/dev/null`
                elif self._case_word(word, cases, command):
                    command.append(word)
                expect = ""
        end()
        if any(doc.depth == depth for doc in self.pending):
            self.unclear = True  # a here-document begun here, on a line this `$(…)` does not end
        self.depth -= 1

    def _io_number(self, word: Word) -> bool:
        return word.text is not None and word.text.isdigit() and self._peek() in ("<", ">")

    @staticmethod
    def _case_word(word: Word, cases: list[_Case], command: Command) -> bool:
        """Follow `case WORD in PATTERN) … ;; esac` (a `)` that ends a pattern does not end a `$(…)`);
        False for a word of the `case` itself (its subject, `in`, a pattern), not of a command."""
        top = cases[-1] if cases else None
        at_start = all(w.text in RESERVED for w in command)
        if top is not None and top.state == "subject":
            top.state = "in"
        elif top is not None and top.state == "in":
            top.state = "pattern" if word.text == "in" else "in"
        elif top is not None and top.state == "pattern":
            if word.text == "esac" and top.pattern_words == 0:
                cases.pop()
            else:
                top.pattern_words += 1
        elif at_start and word.text == "case":
            cases.append(_Case())
            return False
        else:
            if at_start and word.text == "esac" and top is not None:
                cases.pop()
            return True
        return False

    def _comment(self) -> None:
        while self.pos < len(self.src) and (self.src[self.pos] != "\n" or self._hole(self.pos)):
            if self._hole(self.pos):
                self._mark(self.pos, Place.COMMENT)
            self.pos += 1

    # -- words -------------------------------------------------------------------------------------
    def _word(self) -> Word:
        builder = _WordBuilder()
        self.words.append(builder)
        try:
            self._word_parts(builder)
        finally:
            self.words.pop()
        return builder.word()

    def _word_parts(self, word: _WordBuilder) -> None:
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if self._hole(self.pos):
                self._mark(self.pos, Place.WORD)
                self.pos += 1
            elif ch in _ENDS_WORD:
                return
            elif ch == "\\":
                self._backslash(word, quoted=False)
            elif ch == "'":
                word.chars.append(self._single_quoted())
            elif ch == '"':
                self._double_quoted(word)
            elif ch == "`":
                word.dynamic()
                self._backquoted()
            elif ch == "$":
                self._dollar(word, in_quotes=False)
            elif ch == "[" and word.head is None and _NAME.match("".join(word.chars)):
                word.dynamic()
                self._subscript(1)  # `a[i]=…`: bash evaluates the index
            else:
                word.chars.append(ch)
                self.pos += 1

    def _backslash(self, word: _WordBuilder | None, *, quoted: bool) -> None:
        """A `\\` at `pos`: unquoted it escapes any character; inside "…" only $ ` " \\ and a newline."""
        nxt = self._peek(1)
        if self._hole(self.pos + 1):
            self._mark(self.pos + 1, Place.AFTER_BACKSLASH)
            self.pos += 2
        elif nxt == "\n":
            self.pos += 2
        elif not quoted or nxt in '$`"\\':
            if word is not None:
                word.chars.append(nxt)
            self.pos += 2 if nxt else 1
        else:
            if word is not None:
                word.chars.append("\\")
            self.pos += 1

    def _single_quoted(self, place: Place = Place.SINGLE_QUOTED) -> str:
        self.pos += 1
        start = self.pos
        while self.pos < len(self.src) and (self.src[self.pos] != "'" or self._hole(self.pos)):
            if self._hole(self.pos):
                self._mark(self.pos, place)
            self.pos += 1
        text = self.src[start:self.pos]
        self.pos = min(self.pos + 1, len(self.src))
        return text

    def _double_quoted(self, word: _WordBuilder | None) -> None:
        self.pos += 1
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if self._hole(self.pos):
                self._mark(self.pos, Place.DOUBLE_QUOTED)
                self.pos += 1
            elif ch == '"':
                self.pos += 1
                return
            elif ch == "\\":
                self._backslash(word, quoted=True)
            elif ch == "$":
                self._dollar(word, in_quotes=True)
            elif ch == "`":
                if word is not None:
                    word.dynamic()
                self._backquoted()
            else:
                if word is not None:
                    word.chars.append(ch)
                self.pos += 1

    def _backquoted(self) -> None:
        """`…`: it ends at the first unescaped backquote (quotes inside do not protect one)."""
        self.refusing.append(Place.BACKQUOTED)
        self.pos += 1
        while self.pos < len(self.src):
            if self._hole(self.pos):
                self._mark(self.pos, Place.BACKQUOTED)
                self.pos += 1
            elif self.src[self.pos] == "\\":
                if self._hole(self.pos + 1):
                    self._mark(self.pos + 1, Place.BACKQUOTED)
                self.pos += 2
            elif self.src[self.pos] == "`":
                self.pos += 1
                break
            else:
                self.pos += 1
        self.refusing.pop()

    def _dollar(self, word: _WordBuilder | None, *, in_quotes: bool) -> None:
        src, at = self.src, self.pos
        if self._hole(at + 1):
            if word is not None:
                word.chars.append("$")
            self.pos += 1
            return
        if src.startswith("$((", at):
            self._dynamic(word)
            self._arithmetic()
        elif src.startswith("$(", at):
            self._dynamic(word)
            self.pos += 2
            self._commands(")")
        elif src.startswith("$[", at):
            self._dynamic(word)
            self._subscript(2)  # bash's old `$[ … ]` arithmetic
        elif src.startswith("${", at):
            self._dynamic(word)
            self._parameter(in_quotes=in_quotes)
        elif src.startswith("$'", at) and not in_quotes:
            self._dynamic(word)
            self._dollar_quoted()
        elif src.startswith('$"', at) and not in_quotes:
            self.pos += 1  # bash's translated "…": read as "…"
        elif at + 1 < len(src) and (src[at + 1].isalnum() or src[at + 1] in "_@*#?$!-"):
            self._dynamic(word)
            self.pos += 1
        else:
            if word is not None:
                word.chars.append("$")
            self.pos += 1

    @staticmethod
    def _dynamic(word: _WordBuilder | None) -> None:
        if word is not None:
            word.dynamic()

    def _arithmetic(self, opener: int = 3) -> None:
        """$((…)) (or bash's `((…))`, `opener` 2); when its first `)` closes alone it was `$( (…) …)`,
        which dash refuses: unclear."""
        self.refusing.append(Place.ARITHMETIC)
        self.pos += opener
        parens = 0
        while self.pos < len(self.src):
            ch = self.src[self.pos]
            if self._hole(self.pos):
                self._mark(self.pos, Place.ARITHMETIC)
                self.pos += 1
            elif ch == "(":
                parens += 1
                self.pos += 1
            elif ch == ")" and parens:
                parens -= 1
                self.pos += 1
            elif ch == ")":
                self.pos += 1
                if self._peek() == ")":
                    self.pos += 1
                else:
                    self.unclear = True
                    self._commands(")")
                break
            else:
                self._inner(in_quotes=False)
        self.refusing.pop()

    def _subscript(self, opener: int) -> None:
        """Up to the `]` that closes `$[` or an index `a[` (`opener` 1): bash evaluates what is inside as
        arithmetic, and reads `a[ i ]=x` as one word, blanks and all."""
        self.refusing.append(Place.ARITHMETIC)
        self.pos += opener
        depth = 1
        while self.pos < len(self.src):
            ch = self.src[self.pos]
            if self._hole(self.pos):
                self._mark(self.pos, Place.ARITHMETIC)
                self.pos += 1
            elif ch in "[]":
                depth += 1 if ch == "[" else -1
                self.pos += 1
                if not depth:
                    break
            elif ch in _ENDS_INDEX and opener == 1:
                break  # `a[` not closed on its command: the rest is read as usual
            else:
                self._inner(in_quotes=False)
        self.refusing.pop()

    def _parameter(self, *, in_quotes: bool) -> None:
        """${…}: it ends at the first `}` outside quotes and expansions."""
        self.refusing.append(Place.PARAMETER)
        self.pos += 2
        while self.pos < len(self.src):
            ch = self.src[self.pos]
            if self._hole(self.pos):
                self._mark(self.pos, Place.PARAMETER)
                self.pos += 1
            elif ch == "}":
                self.pos += 1
                break
            elif ch == "'" and in_quotes:
                self.unclear = True  # dash reads this ' as text, bash as a quote
                self._single_quoted()
            else:
                self._inner(in_quotes=in_quotes)
        self.refusing.pop()

    def _inner(self, *, in_quotes: bool) -> None:
        """One piece inside $((…)) or ${…}: a quoted string, an expansion, an escape or a character."""
        ch = self.src[self.pos]
        if ch == "\\":
            self._backslash(None, quoted=in_quotes)
        elif ch == "'":
            self._single_quoted()
        elif ch == '"':
            self._double_quoted(None)
        elif ch == "`":
            self._backquoted()
        elif ch == "$":
            self._dollar(None, in_quotes=in_quotes)
        else:
            self.pos += 1

    def _dollar_quoted(self) -> None:
        """$'…' (bash, and dash from 0.5.13): `\\'` inside keeps bash's open, while older dash's ends."""
        self.refusing.append(Place.DOLLAR_QUOTED)
        self.pos += 2
        while self.pos < len(self.src):
            ch = self.src[self.pos]
            if self._hole(self.pos):
                self._mark(self.pos, Place.DOLLAR_QUOTED)
                self.pos += 1
            elif ch == "\\":
                if self._hole(self.pos + 1):
                    self._mark(self.pos + 1, Place.DOLLAR_QUOTED)
                elif self._peek(1) == "'":
                    self.unclear = True
                self.pos += 2
            elif ch == "'":
                self.pos += 1
                break
            else:
                self.pos += 1
        self.refusing.pop()

    # -- here-documents ----------------------------------------------------------------------------
    def _heredoc(self, start: int, word: Word, *, strip_tabs: bool, depth: int) -> None:
        raw = self.src[start:self.pos]
        if word.holes or "$" in raw or "`" in raw:
            for hole in word.holes:
                self.reading.places[hole] = Place.HEREDOC_DELIMITER
            self.unclear = True  # where its body ends depends on what the shell makes of this word
        quoted = any(c in raw for c in "'\"\\")
        self.pending.append(HereDoc(unquote(raw), strip_tabs, quoted, depth))

    def _bodies(self, depth: int) -> None:
        """The bodies of the here-documents begun on the line that just ended, in order."""
        pending, self.pending = self.pending, []
        for doc in pending:
            if doc.depth != depth:
                self.unclear = True
            self._body(doc)

    def _body(self, doc: HereDoc) -> None:
        end, holes = body_end(self.src, self.pos, doc, self.holes)
        for at in holes:
            self._mark(at, Place.HEREDOC)
        self.pos = end
