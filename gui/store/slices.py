"""Where each document of a history segment lies in its file, so a page reads only its documents.

A segment holds a thousand documents in one JSON file: reading one of them by parsing the file
costs the whole file (a segment of runs is ~3 MB, tens of milliseconds). When history writes a
segment, its storage knows where each document's JSON text went (`WholeDocumentStorage.spans`);
`Slices` keeps that (two byte offsets per document, in the order of the segment's index) with the
stamp of the segment file as written (inode, size, time of the write: segment files are replaced,
never changed in place). History writes it in the segment's index file, beside the index, in the
same write (`IndexTable.commit(beside=...)`):

    history/<name>-0001.index.json   {"index": {...}, "slices": {"segment": {"stamp": [...], "spans": "<base64>",
                                                                           "vouched": "<base64>"}}}

A page of a segment that is not parsed then reads its documents' bytes straight from the file, and
only while the file still has that stamp: a segment written since (by a version that did not keep
slices, or left by a crash between its write and its index's) is parsed as before. It is only a
shortcut: what the bytes say is read and checked as any stored document is, unless the store
vouches for them: `vouched` holds, per document in the same order, the digest of the text the store
checked when it wrote it (`gui.store.vouching`; zeros: none), and a page whose bytes have that
digest again may be sent on as it is. A version that does not know `vouched` ignores it.
"""

from __future__ import annotations

import base64
import binascii
import os
import sys
from array import array
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gui.store.catalog import stamp
from gui.store.vouching import DIGEST_BYTES, NOT_VOUCHED

TABLE = "slices"  # the table beside the index, in the index file
KEY = "segment"  # its one document


class Slices:
    def __init__(self, file_stamp: list[int], spans: dict[str, tuple[int, int]],
                 vouched: dict[str, bytes] | None = None) -> None:
        self.stamp = file_stamp
        self.spans = spans
        self.vouched = vouched or {}  # id -> the digest of the text the store vouches for (none: absent)

    @classmethod
    def of(cls, path: Path, ids: list[str], spans: Mapping[str, tuple[int, int]],
           vouched: Mapping[str, bytes] | None = None) -> Slices | None:
        """The slices of the segment at `path` as just written, for `ids` (its index's, in order);
        None when one of them has no span (its text was not written where the storage could tell).
        `vouched`: the digests of the documents' texts the store vouches for (`gui.store.vouching`)."""
        file_stamp = stamp(path)
        if file_stamp is None or any(doc_id not in spans for doc_id in ids):
            return None
        digests = {doc_id: vouched[doc_id] for doc_id in ids if doc_id in vouched} if vouched else {}
        return cls(file_stamp, {doc_id: spans[doc_id] for doc_id in ids}, digests)

    def encode(self) -> dict[str, Any]:
        """As kept beside the index: the stamp, and the spans (in the order of the ids given to
        `of`: the index's) as little-endian 64-bit offsets in base64 (compact, decoded at C speed)."""
        offsets = array("q")
        for span in self.spans.values():
            offsets.extend(span)
        if offsets.itemsize != 8:  # pragma: no cover  (every platform SeqDesk runs on)
            raise TypeError("array('q') is not 64-bit here")
        raw = offsets.tobytes() if sys.byteorder == "little" else _swapped(offsets)
        encoded = {"stamp": self.stamp, "spans": base64.b64encode(raw).decode("ascii")}
        if self.vouched:
            digests = b"".join(self.vouched.get(doc_id, NOT_VOUCHED) for doc_id in self.spans)
            encoded["vouched"] = base64.b64encode(digests).decode("ascii")
        return encoded

    @classmethod
    def decode(cls, saved: Any, ids: list[str]) -> Slices | None:
        """The slices `encode` gave for `ids`; None if `saved` is not that (then the segment is parsed)."""
        try:
            file_stamp, raw = saved["stamp"], base64.b64decode(saved["spans"], validate=True)
        except (KeyError, TypeError, ValueError, binascii.Error):
            return None
        if not isinstance(file_stamp, list) or len(raw) != 16 * len(ids):
            return None
        offsets = array("q")
        offsets.frombytes(raw)
        if sys.byteorder != "little":
            offsets.byteswap()
        spans = {doc_id: (offsets[2 * n], offsets[2 * n + 1]) for n, doc_id in enumerate(ids)}
        return cls(file_stamp, spans, _vouched(saved.get("vouched"), ids))

    def read(self, path: Path, ids: Iterable[str]) -> dict[str, bytes] | None:
        """The JSON text of each document of `ids`, read from the segment at `path`; None when the
        file is no longer the one these slices describe, or one of them has no slice or does not
        look like a document there (the caller parses the segment instead)."""
        wanted = [(doc_id, self.spans.get(doc_id)) for doc_id in ids]
        if any(span is None for _, span in wanted):
            return None
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if [st.st_ino, st.st_size, st.st_mtime_ns] != self.stamp:
                return None
            texts = {}
            for doc_id, span in wanted:
                assert span is not None
                start, stop = span
                if not 0 <= start < stop <= st.st_size:  # an index file damaged or written by hand
                    return None
                text = os.pread(fd, stop - start, start)
                if len(text) != stop - start or text[:1] != b"{" or text[-1:] != b"}":
                    return None
                texts[doc_id] = text
            return texts
        except OSError:
            return None
        finally:
            os.close(fd)


def _vouched(saved: Any, ids: list[str]) -> dict[str, bytes]:
    """The digests `encode` kept for `ids`; none when they are absent or not that (then every
    document of the segment is read and checked)."""
    if not isinstance(saved, str):
        return {}
    try:
        raw = base64.b64decode(saved, validate=True)
    except (ValueError, binascii.Error):
        return {}
    if len(raw) != DIGEST_BYTES * len(ids):
        return {}
    digests = (raw[n * DIGEST_BYTES:(n + 1) * DIGEST_BYTES] for n in range(len(ids)))
    return {doc_id: digest for doc_id, digest in zip(ids, digests, strict=True) if digest != NOT_VOUCHED}


def _swapped(offsets: array[int]) -> bytes:  # pragma: no cover  (a big-endian machine)
    copy = array("q", offsets)
    copy.byteswap()
    return copy.tobytes()
