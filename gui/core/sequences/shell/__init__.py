"""Where an input lands in shell text: a POSIX sh lexer, here-documents, the place of each input, how an
input goes in there, and which words a known program runs as code.
"""

from gui.core.sequences.shell.inputs import allowed, in_double_quotes, insert, refusal, runs_as_words
from gui.core.sequences.shell.lexer import read_shell
from gui.core.sequences.shell.programs import code_holes
from gui.core.sequences.shell.reading import Place

__all__ = [
    "allowed",
    "code_holes",
    "in_double_quotes",
    "insert",
    "Place",
    "read_shell",
    "refusal",
    "runs_as_words",
]
