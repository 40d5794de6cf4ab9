"""Every approval rule at once, as the door offers them: listed, taken back, told apart when made for
an earlier version of their step, and dropped with the sequence they were made for.

The rules themselves (what each covers, in words) are `gui.core.asks.rules`; they are kept in the
approval modes (`ApprovalModes`). `Engine` holds one `RuleBook` and passes the door's rule
operations to it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from gui.core.asks.approvals import ApprovalModes
from gui.core.asks.rules import ApprovalRule, made_for_earlier_version, tool_rule_id
from gui.core.events import EventBus, SettingsChanged
from gui.core.sequences import Sequence


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
