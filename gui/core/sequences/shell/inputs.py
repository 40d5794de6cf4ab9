"""How an input goes into shell text, decided by where it lands (`gui.core.sequences.shell.reading.Place`).

Between words it goes in as one shell-quoted word (`shlex.quote`); inside "…" as it is, or, when
it holds a backslash, `$`, backquote or `"`, with the "…" closed around it as a shell-quoted piece
of the same word, so the value is text there too. Nowhere else can a text value go safely: inside
'…' a `'` of the value ends the quotes; `…`, ${…} and $((…)) read their contents again; a line
of the value can end a here-document; a line break ends a comment. Those places are refused, at
save (the validator) and again when a step runs (`gui.core.sequences.substitution`), with what to write
instead. A number is only digits and signs, so it may also go where the shell reads it again
(`$(( $args.n + 1 ))`, `${x:-$args.n}`, '…', `…`).

Separately, `runs_as_words` is the warning for an input that a program runs as code (`sh -c`,
`eval`…: `gui.core.sequences.shell.programs`): quoting keeps it one word, but that program runs the word.
"""

from __future__ import annotations

import shlex

from gui.core.marks import N_, Sentence, sentence
from gui.core.sequences.shell.reading import Place

TEXT_PLACES = frozenset({Place.WORD, Place.DOUBLE_QUOTED})
NUMBER_PLACES = TEXT_PLACES | {Place.SINGLE_QUOTED, Place.DOLLAR_QUOTED, Place.BACKQUOTED, Place.PARAMETER,
                               Place.ARITHMETIC}

_REFUSED: dict[Place, str] = {
    Place.SINGLE_QUOTED: N_("remove the quotes around $args.{name}: SeqDesk quotes inputs for you (inside '…' "
                            "a ' in its value would end the quotes, and the rest would run as a command)"),
    Place.DOLLAR_QUOTED: N_("remove the $'…' around $args.{name}: SeqDesk quotes inputs for you"),
    Place.AFTER_BACKSLASH: N_("remove the \\ before $args.{name}: SeqDesk quotes inputs for you (a \\ there "
                              "would change how the shell reads its value)"),
    Place.BACKQUOTED: N_("$args.{name} is inside backquotes `…`, where the shell would read its value as part of "
                         "a command: write $(…) instead of `…`"),
    Place.PARAMETER: N_("$args.{name} is inside ${{…}}, where the shell would read its value as part of the "
                        "expansion: use it outside the ${{…}}"),
    Place.ARITHMETIC: N_("$args.{name} is inside arithmetic ($((…)), ((…)), $[…] or an index a[…]), where the shell "
                         "would evaluate its value (which can run commands): make it a number input, or use it "
                         "outside"),
    Place.HEREDOC: N_("$args.{name} is inside a here-document (<<), where a line of its value could end the "
                      "document and run the rest: pass it another way, for example printf '%s\\n' $args.{name} | …"),
    Place.HEREDOC_DELIMITER: N_("$args.{name} is the end word of a here-document (<<): write a fixed word there"),
    Place.COMMENT: N_("$args.{name} is inside a comment (after #), where it does nothing and a line break in its "
                      "value would run the rest: take it out of the comment"),
    Place.UNCLEAR: N_("SeqDesk cannot tell how the shell reads the command before $args.{name} (shells read that "
                      "part differently, or an alias set before it can change it): write that part more simply"),
}


def allowed(place: Place, *, number: bool = False) -> bool:
    """May a value go in at `place`? `number`: the value is a number (JSON text: digits and signs)."""
    return place in (NUMBER_PLACES if number else TEXT_PLACES)


def refusal(place: Place, name: str) -> Sentence:
    """What to write instead, for an input at a `place` where it may not go."""
    return sentence(_REFUSED[place], name=name)


def insert(text: str, place: Place) -> str:
    """`text` (an input's value as text) as it goes into shell text at `place` (an allowed place)."""
    if place is Place.WORD:
        return shlex.quote(text)
    if place is Place.DOUBLE_QUOTED:
        return in_double_quotes(text)
    return text  # a number, where its digits are read as they are


def in_double_quotes(text: str) -> str:
    """`text` as it reads literally inside "…": as it is when it holds no backslash, `$`, backquote or
    `"`, else the quotes closed around it as one shell-quoted piece of the same word
    (`"a "'$(b)'" c"`). No backslash is added: in a legacy multibyte locale (GBK, Big5) bash could
    read one as the second byte of a character."""
    if not any(ch in text for ch in '\\$`"'):
        return text
    return '"' + shlex.quote(text) + '"'


def runs_as_words(name: str, program: str, *, whole: bool = False) -> Sentence:
    """The warning for an input a program runs as a command (`program`: "" when it names the program)."""
    if whole:
        return sentence(N_("the whole command is $args.{name}: whoever gives that input chooses what runs; "
                           "check each request before you approve it"), name=name)
    if not program:
        return sentence(N_("$args.{name} names the program to run: whoever gives that input chooses what runs; "
                           "check each request before you approve it"), name=name)
    return sentence(N_("$args.{name} will be run as a command by {program}: quoting keeps it one word, but "
                       "{program} runs that word, so whoever gives that input chooses what runs"),
                    name=name, program=program)
