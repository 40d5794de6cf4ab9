"""The record of decisions read back (`gui.core.asks.audit` writes it): checked link by link
(`verify`: the first entry edited, removed or moved by hand is named), its entries for a screen or the
command line (`entries`), and who or what decided each, in words (`who_words`).

Nothing here is on the way a request is answered: the Settings page's "Decisions" and `seqdesk audit`
read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from gui.core.asks.audit import GENESIS, AuditEntry, AuditHead, digest
from gui.core.asks.interactions import CANCEL_WORDS
from gui.core.causes import CAUSES, as_cause
from gui.core.marks import N_, Translate, as_written


@dataclass(frozen=True)
class Verdict:
    """What `verify` found: how many entries it read, and the first that breaks the chain (if any)."""

    count: int
    broken_at: int | None = None  # position in the log (from 1)
    broken_id: str | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.broken_at is None

    def sentence(self) -> str:
        if self.ok:
            return f"the chain of {self.count} decision{'' if self.count == 1 else 's'} is unbroken"
        named = f" (id {self.broken_id})" if self.broken_id else ""
        return f"the chain is broken at entry {self.broken_at}{named}: {self.problem}"


def verify(documents: Iterable[Mapping[str, Any] | None], head: AuditHead | None = None) -> Verdict:
    """Check every stored entry in order (a `None`: a line that is not an entry): its own hash, the
    previous hash it names, and its position. The first that does not fit is named. With the `head`
    kept apart from the entries, the last entry must be the one it names: newest entries cut off (or
    added past it by hand) are found too."""
    previous = GENESIS
    count = 0
    for count, document in enumerate(documents, 1):
        if document is None:
            return Verdict(count, count, None, "it is not an entry (not a JSON object)")
        entry_id = document.get("entry_id")
        named = str(entry_id) if isinstance(entry_id, str) else None
        if document.get("hash") != digest(document):
            return Verdict(count, count, named, "its contents were changed after it was written "
                                                "(its hash does not match them)")
        if document.get("prev") != previous:
            return Verdict(count, count, named, "the entry before it was changed, removed or moved "
                                                "(it names a different previous hash)")
        if document.get("position") != count:
            return Verdict(count, count, named, f"it says it is entry {document.get('position')}")
        previous = str(document["hash"])
    if head is not None and (head.position, head.hash) != (count, previous):
        if head.position > count:
            return Verdict(count, count + 1, None, f"the newest entries were removed: the record's head names "
                                                   f"entry {head.position}, and the entries end at entry {count}")
        at = min(head.position, count) + 1
        return Verdict(count, at, None, f"the entries do not end where the record's head says (entry "
                                        f"{head.position}): entries were added past it, or replaced, by hand")
    return Verdict(count)


def entries(documents: Iterable[Mapping[str, Any] | None], *, since_ms: int | None = None) -> list[AuditEntry]:
    """The stored entries that read as entries (decided at or after `since_ms`), oldest first."""
    found = []
    for document in documents:
        if document is None:
            continue
        try:
            entry = AuditEntry.model_validate(document)
        except ValidationError:
            continue
        if since_ms is None or entry.at >= since_ms:
            found.append(entry)
    return found


_VIA_WORDS: dict[str, str] = {
    "app": N_("You, in the app"),
    "phone": N_("You, on your paired phone"),
    "cli": N_("You, at the command line (seqdesk run)"),
    "api": N_("The HTTP API, with the app's token"),
    "mcp": N_("seqdesk mcp"),
}


def who_words(entry: AuditEntry, tr: Translate = as_written) -> str:
    """Who or what decided, in words (`tr`: a screen's `_`; English as written by default)."""
    if entry.by == "person":
        via = _VIA_WORDS.get(entry.via or "") or N_("A person (the way in was not recorded)")
        words = tr(via)
        if entry.person not in (None, "you"):
            words = f"{entry.person}: {words}"
        return words + (f" ({entry.token})" if entry.token else "")
    if entry.by == "rule":
        return tr(N_("The rule {rule}")).format(rule=entry.rule_text or entry.rule_id or "?") + (
            f" [{entry.rule_id}]" if entry.rule_id else "")
    if entry.by == "timeout":
        return tr(N_("Nobody: the request expired"))
    cause = as_cause(entry.cause)
    if cause is not None:
        why = tr(CAUSES[cause].why)
    else:  # no cause known: the cancel reason it was stored with, in words (never its code)
        reason = CANCEL_WORDS.get(entry.cause or "")  # type: ignore[call-overload]
        why = tr(reason) if reason is not None else tr(CANCEL_WORDS["turn_stopped"])
    return tr(N_("Stopped: {why}")).format(why=why)
