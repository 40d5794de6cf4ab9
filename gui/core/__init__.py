"""The pure engine of SeqDesk: the sequence format, its validator, conditions, the runner, tools'
registry, interactions and elicitation. Imports no UI, storage or MCP library (a test checks);
storage comes in through small store protocols (`SequenceStore`, `RunStore`, `InteractionStore`).

Most callers need only `Engine` (the operations every surface shares) and the errors below.
"""

from gui.core.documents import NotFoundError
from gui.core.engine import Engine, WhenCallError
from gui.core.errors import DslError, Problem
from gui.core.run_args import RunArgsError
from gui.core.validator import ValidationResult, check_document, check_text, parse_sequence

__all__ = [
    "DslError",
    "Engine",
    "NotFoundError",
    "Problem",
    "RunArgsError",
    "ValidationResult",
    "WhenCallError",
    "check_document",
    "check_text",
    "parse_sequence",
]
