"""How large a sequence may be: bytes of JSON, groups, tools.

Every way in (the editor, the HTTP API, MCP's `seq_create`, `seqdesk check` and `run FILE`) reaches
`check_document`/`check_text`, which refuse a document over these limits before reading it further,
so the work one document makes (checking, storing, reading back, starting a run, drawing it) is
bounded. The limits are far above what a person builds (a sequence of 50 groups of 10 tools is
large) and were chosen from measurements (README, "Large sequences";
`tests/bench/bench_large_documents.py`): at the limit, no step of saving, reading back or starting
a run holds up the app's other requests for more than a few tens of milliseconds.

The HTTP API refuses a larger request body with 413 before decoding it (`gui.api.body`), with the
same number of bytes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gui.core.marks import N_
from gui.core.sequences.model import Group
from gui.core.sequences.problems import DslError, Loc, Problem, problem

MAX_DOCUMENT_BYTES = 2 * 1024 * 1024  # the JSON text of one sequence
MAX_GROUPS = 1000
MAX_TOOLS = 2000  # tools in all the groups of one sequence together

_SPLIT = N_("split it into several sequences (a group can call another sequence with seq_call)")


def megabytes(size: int) -> str:
    """`2 MB`, `10.4 MB`: a size as people read it (MB of 1024 × 1024 bytes, as the limit is set)."""
    value = size / 1024 / 1024
    return f"{value:.0f} MB" if value >= 100 or value == int(value) else f"{value:.1f} MB"


def too_large(size: int | None, loc: Loc = ()) -> Problem:
    """The problem of a document of `size` bytes (None: more than the limit, not counted further)."""
    if size is None:
        return problem(loc, "too-large", N_("the sequence is more than {limit} of JSON, the most one sequence may "
                                            "be: {split}"), limit=megabytes(MAX_DOCUMENT_BYTES), split=_SPLIT)
    return problem(loc, "too-large", N_("the sequence is {size} of JSON, more than the {limit} one sequence may be: "
                                        "{split}"), size=megabytes(size), limit=megabytes(MAX_DOCUMENT_BYTES),
                   split=_SPLIT)


def text_problem(text: str, loc: Loc = ()) -> Problem | None:
    """Whether a document's text is over the byte limit (counted as UTF-8)."""
    if len(text) > MAX_DOCUMENT_BYTES:  # every character is at least one byte: no need to encode it
        return too_large(len(text.encode("utf-8", "surrogatepass")), loc)
    size = len(text.encode("utf-8", "surrogatepass"))
    return too_large(size, loc) if size > MAX_DOCUMENT_BYTES else None


def document_problem(doc: Any) -> Problem | None:
    """Whether a decoded document is over the byte limit (as compact JSON) or holds too many groups.

    The walk stops as soon as the limit is passed, so a huge document costs no more than a document
    at the limit; counting the tools needs them read (`tools_problem`, once they are)."""
    size = _json_size(doc, MAX_DOCUMENT_BYTES)
    if size is None:
        return too_large(None)
    groups = doc.get("groups") if isinstance(doc, Mapping) else None
    return groups_problem(len(groups)) if isinstance(groups, list) else None


def groups_problem(count: int) -> Problem | None:
    """Whether `count` groups are more than a sequence may have."""
    if count <= MAX_GROUPS:
        return None
    return problem(("groups",), "too-many-groups",
                   N_("the sequence has {count} groups, more than the {limit} one sequence may have: {split}"),
                   count=count, limit=MAX_GROUPS, split=_SPLIT)


def tools_problem(tool_counts: list[int]) -> Problem | None:
    """Whether the groups' tools together (`tool_counts`, one number per group) are too many."""
    count = sum(tool_counts)
    if count <= MAX_TOOLS:
        return None
    return problem(("groups",), "too-many-tools",
                   N_("the sequence has {count} tools in all its groups, more than the {limit} one sequence may "
                      "have: {split}"), count=count, limit=MAX_TOOLS, split=_SPLIT)


def run_problem(groups: Iterable[Group]) -> Problem | None:
    """Whether the groups a run would go through are over the limits: a sequence saved before there
    were limits is kept, read back and deleted as any other, but not run until it is split."""
    counts = [len(group.tools) for group in groups]
    return groups_problem(len(counts)) or tools_problem(counts)


def read_document_file(path: str | Path, loc: Loc) -> str:
    """A sequence file's text; DslError at `loc` when it is over the byte limit (it is not read
    then). OSError and UnicodeDecodeError as `Path.read_text` raises them."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_DOCUMENT_BYTES + 1)
        if len(data) > MAX_DOCUMENT_BYTES:
            status = os.fstat(handle.fileno())  # a device or a pipe has no size to say
            raise DslError([too_large(status.st_size if stat.S_ISREG(status.st_mode) else None, loc)])
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as `read_text` reads it


def _json_size(value: Any, limit: int) -> int | None:
    """About how many bytes `value` takes as compact JSON; None once that is more than `limit`."""
    size = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            size += len(item) + 2 if len(item) > limit else len(item.encode("utf-8", "surrogatepass")) + 2
        elif isinstance(item, Mapping):
            size += 2 * len(item) + 1
            for key, child in item.items():
                size += len(str(key)) + 2
                stack.append(child)
        elif isinstance(item, list | tuple):
            size += len(item) + 1
            stack.extend(item)
        else:
            size += 5  # a number, true, false or null
        if size > limit:
            return None
    return size
