"""The `when` condition language: its lexer, parser and strict evaluator, and the visual builder's rows.
"""

from gui.core.sequences.conditions.builder import condition_rows, rows_to_text
from gui.core.sequences.conditions.language import (
    Condition,
    ConditionEvalError,
    ConditionSyntaxError,
    evaluate,
    parse_condition,
)

__all__ = [
    "Condition",
    "condition_rows",
    "ConditionEvalError",
    "ConditionSyntaxError",
    "evaluate",
    "parse_condition",
    "rows_to_text",
]
