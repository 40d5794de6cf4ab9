"""The sequence format: its model, the text form read and written, the validator, conditions, `$args`
substitution, limits and the help text. Imports nothing of the packages above it (asks, tools, runs, door).
"""

from gui.core.sequences.asking import ASKING_KEYS, TARGET_KINDS, Asking, TargetKind, split_target
from gui.core.sequences.calls import direct_calls
from gui.core.sequences.catalog_view import CatalogView
from gui.core.sequences.conditions import ConditionSyntaxError, condition_rows, parse_condition, rows_to_text
from gui.core.sequences.durations import format_duration, parse_duration
from gui.core.sequences.export import to_document, to_text
from gui.core.sequences.fingerprint import (
    digest,
    group_fingerprint,
    run_step_fingerprints,
    step_fingerprint,
    step_fingerprints,
)
from gui.core.sequences.free_names import NAMING_CODES, Renamed, free_name, taken_names, with_free_names
from gui.core.sequences.help import EXAMPLE, help_text
from gui.core.sequences.limits import (
    MAX_DOCUMENT_BYTES,
    megabytes,
    read_document_file,
    run_problem,
    text_problem,
    too_large,
)
from gui.core.sequences.model import (
    RETRY_ATTEMPTS,
    SLOT_TYPE_NAMES,
    Group,
    Missing,
    OnError,
    Sequence,
    Signature,
    SlotType,
    ToolCall,
    json_type_name,
    matches_type,
)
from gui.core.sequences.names import ARGS_PREFIX, arg_ref, nearest_names, scan_name
from gui.core.sequences.parser import NUMBER_HOOKS, load_json_text, split_tools
from gui.core.sequences.problems import DslError, Problem, problem
from gui.core.sequences.result_types import literal_type
from gui.core.sequences.run_args import RunArgsError, check_args, type_name
from gui.core.sequences.signature import signature_of
from gui.core.sequences.substitution import (
    Bound,
    SubstitutionError,
    as_text,
    bind,
    bind_literal,
    bound_inputs,
    run_as_code,
    shell_words,
    substitute,
    whole_reference,
)
from gui.core.sequences.textpos import Span, line_col, locate, place_of, raw_index, scan
from gui.core.sequences.unicode_check import surrogate_loc
from gui.core.sequences.validator import InvalidSequenceError, ValidationResult, check_document, check_text
from gui.core.sequences.validator_tools import HOST_NAME, ArgumentsError, argument_problems

__all__ = [
    "Bound",
    "bind",
    "bind_literal",
    "ASKING_KEYS",
    "Asking",
    "split_target",
    "TARGET_KINDS",
    "TargetKind",
    "HOST_NAME",
    "ConditionSyntaxError",
    "condition_rows",
    "parse_condition",
    "rows_to_text",
    "arg_ref",
    "argument_problems",
    "ARGS_PREFIX",
    "ArgumentsError",
    "as_text",
    "bound_inputs",
    "CatalogView",
    "check_args",
    "check_document",
    "check_text",
    "digest",
    "direct_calls",
    "DslError",
    "EXAMPLE",
    "format_duration",
    "free_name",
    "taken_names",
    "with_free_names",
    "Group",
    "group_fingerprint",
    "help_text",
    "InvalidSequenceError",
    "json_type_name",
    "line_col",
    "literal_type",
    "load_json_text",
    "locate",
    "matches_type",
    "MAX_DOCUMENT_BYTES",
    "megabytes",
    "Missing",
    "NAMING_CODES",
    "nearest_names",
    "NUMBER_HOOKS",
    "OnError",
    "parse_duration",
    "place_of",
    "Problem",
    "problem",
    "raw_index",
    "read_document_file",
    "Renamed",
    "RETRY_ATTEMPTS",
    "run_as_code",
    "run_problem",
    "RunArgsError",
    "scan",
    "scan_name",
    "Sequence",
    "shell_words",
    "Signature",
    "signature_of",
    "SLOT_TYPE_NAMES",
    "SlotType",
    "Span",
    "split_tools",
    "run_step_fingerprints",
    "step_fingerprint",
    "step_fingerprints",
    "substitute",
    "SubstitutionError",
    "surrogate_loc",
    "text_problem",
    "to_document",
    "to_text",
    "too_large",
    "ToolCall",
    "type_name",
    "ValidationResult",
    "whole_reference",
]
