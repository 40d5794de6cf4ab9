"""What the store vouches for: a history document's JSON text that reads back as itself.

A page of runs sent on as JSON (`GET /api/runs`) would read each document (pydantic validates it)
only to write it out again: three quarters of the page's work. When history writes a segment, each
document's text that the record's model reads back as exactly that text (`reads_as_written`: strict
JSON, valid, and written again byte for byte as the store writes it) gets a digest, kept with the
segment's slices (`gui.store.slices`); a page may then send that text as it is, once the bytes it
read have that digest again.

The digest is a keyed BLAKE2b of the document's id and text, keyed by the model's shape (`shape`:
its JSON schema), so

- a damaged or edited document (its bytes changed, the file's stamp kept or not) has another digest
  and is read and checked as any stored document is (refused with a warning when it does not fit);
- a document read for another id (an index pointing elsewhere) has another digest;
- a version of the app whose records have another shape trusts none of what an earlier one vouched
  for (its new fields would be missing from the text): it reads them as before.

The check reads the text once, on the store's writer thread (what an answer may wait for): a text
longer than `CHECKED_AT_MOST` is not checked, nor vouched for (a run of a thousand tools, 360 KB,
would hold the writer for tens of milliseconds), and is read on each page as before.

A digest is a statement about content, not about a file: kept for a document whose text is the same
after its segment is written again, and checked again (`reads_as_written`) for any other text.
The key is no secret (anyone can compute it from the schema): someone able to rewrite a segment and
its index together, digests included, could have any text between two braces sent as a record,
where reading it would have refused it. That is beyond what a digest kept beside the data can tell;
such a person can as well write false records that read well.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cached_property, partial

import orjson
from pydantic import BaseModel

from gui.store.files import dumps

DIGEST_BYTES = 16
NOT_VOUCHED = bytes(DIGEST_BYTES)  # in the slices, for a document whose text is not vouched for
CHECKED_AT_MOST = 64 * 1024  # bytes of a text the store checks (a few milliseconds of the writer's)


class Vouching:
    """`digest(doc_id, text)` of texts `reads_as_written` accepts, keyed by the shape `shape()` gives.
    The shape is worked out at the first digest, not when the store opens (a record's JSON schema takes
    tens of milliseconds to build: the start of the app a command waits for)."""

    def __init__(self, shape: Callable[[], bytes], reads_as_written: Callable[[bytes], bool]) -> None:
        self._shape = shape
        self.reads_as_written = reads_as_written

    @cached_property
    def _key(self) -> bytes:
        return hashlib.blake2b(self._shape(), digest_size=32).digest()

    def vouches(self, text: bytes) -> bool:
        """Whether the store vouches for `text` as written now: not too long to check, and it reads
        back as itself."""
        return len(text) <= CHECKED_AT_MOST and self.reads_as_written(text)

    def digest(self, doc_id: str, text: bytes) -> bytes:
        hasher = hashlib.blake2b(key=self._key, digest_size=DIGEST_BYTES)
        hasher.update(doc_id.encode("utf-8", "surrogatepass"))
        hasher.update(b"\0")
        hasher.update(text)
        return hasher.digest()

    def matches(self, doc_id: str, text: bytes, digest: bytes | None) -> bool:
        """Whether `text` is the text the store vouched for as `doc_id`'s with `digest`."""
        return digest is not None and digest != NOT_VOUCHED and self.digest(doc_id, text) == digest


def shape(model: type[BaseModel]) -> bytes:
    """The shape of `model`'s records: its JSON schema (fields, aliases, types, defaults)."""
    return json.dumps(model.model_json_schema(by_alias=True), sort_keys=True).encode("utf-8")


def vouching(model: type[BaseModel], *, by_alias: bool) -> Vouching:
    """What the store vouches for of `model`'s documents: a text that is strict JSON (what orjson
    reads: no NaN, no lone surrogate) and that `model` reads as a record written back as the very
    same text, by pydantic (as the API writes a record) or as the store writes documents (ASCII),
    `by_alias` as the store keeps them. Such a text is what reading and writing it would send."""

    def reads_as_written(text: bytes) -> bool:
        try:
            orjson.loads(text)
            record = model.model_validate_json(text)
            return (record.model_dump_json(by_alias=by_alias).encode("utf-8") == text
                    or dumps(record.model_dump(mode="json", by_alias=by_alias)).encode("utf-8") == text)
        except (ValueError, TypeError):  # not JSON (orjson's error), not a record (ValidationError)
            return False

    return Vouching(partial(shape, model), reads_as_written)
