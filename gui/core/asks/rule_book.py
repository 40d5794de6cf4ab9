"""Every approval rule at once: where they are kept (`ApprovalModes`, the port the stores implement),
and the book the door reads them through: listed, taken back, told apart when made for an earlier
version of their step, and dropped with the sequence they were made for.

A tool is `ask` (the default) or `always-allow`: a person sets the latter from the inbox with
"approve and always allow" and takes it back in the settings; narrower rules (what each covers, in
words: `gui.core.asks.rules`) sit beside the modes. Whether one of them lets a request run without
asking is the service's to decide (`gui.core.asks.service`). `Engine` holds one `RuleBook` and passes
the door's rule operations to it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any, Protocol

from gui.core.asks.interactions import ApprovalMode
from gui.core.asks.rules import ApprovalRule, made_for_earlier_version, tool_rule_id
from gui.core.events import EventBus, SettingsChanged
from gui.core.sequences import Sequence

APPROVAL_MODES: tuple[ApprovalMode, ...] = ("ask", "always-allow")


class ApprovalModes(Protocol):
    """Approval mode per tool name (a tool never set is `ask`, and `all` lists only the others), and
    the narrower rules (`gui.core.asks.rules`: run, sequence, prefix) beside them.

    `set`, `add_rule` and `remove_rule` apply at once (the next `get` or `rules` sees it) and return
    an awaitable that completes once the change is durable: whoever acknowledges a change to a
    person awaits it first.
    """

    def get(self, tool_name: str) -> ApprovalMode: ...

    def set(self, tool_name: str, mode: ApprovalMode) -> Awaitable[None]: ...

    def all(self) -> dict[str, ApprovalMode]: ...

    def rules(self) -> list[ApprovalRule]: ...

    def add_rule(self, rule: ApprovalRule) -> Awaitable[None]: ...

    def remove_rule(self, rule_id: str) -> Awaitable[None]: ...


class Done:
    """An awaitable that has already completed: `set` of a store with nothing to wait for."""

    def __await__(self) -> Generator[Any, None, None]:
        yield from ()


DONE = Done()


def check_mode(mode: str) -> ApprovalMode:
    if mode not in APPROVAL_MODES:
        raise ValueError(f"'{mode}' is not an approval mode: use one of {', '.join(APPROVAL_MODES)}")
    return mode


class RuleBook:
    def __init__(self, modes: ApprovalModes, bus: EventBus,
                 saved: Callable[[str], Awaitable[Sequence | None]]) -> None:
        self.modes, self.bus = modes, bus
        self._saved = saved  # the sequence saved now under a name, if any

    async def all(self) -> list[ApprovalRule]:
        """Every rule that lets a tool run without asking: a tool always allowed, then the narrower ones."""
        tools = [ApprovalRule(rule_id=tool_rule_id(name), tool=name, scope="tool")
                 for name, mode in sorted(self.modes.all().items()) if mode == "always-allow"]
        return [*tools, *sorted(self.modes.rules(), key=lambda r: r.created_at)]

    async def revoke(self, rule_id: str) -> ApprovalRule:
        """Take a rule back (what it allowed asks again); durable when it returns; LookupError for an
        unknown id. Announced as `settings.changed`."""
        rule = next((r for r in await self.all() if r.rule_id == rule_id), None)
        if rule is None:
            raise LookupError(f"there is no approval rule {rule_id!r}")
        await self._remove(rule)
        return rule

    async def earlier_versions(self) -> set[str]:
        """The ids of the `sequence` rules made for a step their sequence no longer has as it was (it
        changed, or the sequence was made again): they allow nothing, and Settings says so."""
        rules = [rule for rule in self.modes.rules() if rule.scope == "sequence"]
        saved = {name: await self._saved(name) for name in {rule.sequence or "" for rule in rules}}
        return {rule.rule_id for rule in rules if made_for_earlier_version(rule, saved[rule.sequence or ""])}

    async def forget(self, name: str, identity: str) -> None:
        """The sequence `name` (`identity`) was deleted: its rules go (they could never cover anything
        again, since a sequence made again under its name is another one), so Settings lists only what
        can apply."""
        for rule in self.modes.rules():
            if rule.scope == "sequence" and rule.sequence == name and rule.sequence_identity in (identity, None):
                await self._remove(rule)

    async def _remove(self, rule: ApprovalRule) -> None:
        if rule.scope == "tool":
            await self.modes.set(rule.tool, "ask")
        else:
            await self.modes.remove_rule(rule.rule_id)
        self.bus.publish(SettingsChanged, setting="approval_rule", details={"removed": rule.rule_id,
                                                                            "tool": rule.tool})
