"""Settings → Approvals: one row per tool that needs approval, "Ask every time" or "Always allowed",
with the narrower rules under it.

"Always allow" is only ever granted from the inbox, where the person sees what the tool does;
here it can only be taken back (SPEC §3 rule 6), so a stray click in the settings never removes a
safety check. The rows are drawn from the door (its rules and `list_tools`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from nicegui import ui

from gui.core.asks import PROGRAMS, rule_text_words, tool_rule_id
from gui.core.door import Operations
from gui.i18n import DATA, N_, _

EXPLAINED = N_("Tools that change, read or send things ask you before they run: commands, writing and reading files, "
             "fetching web addresses, and tools from servers. Showing text, waiting and asking you questions never "
             "ask. What you allowed from the inbox (a tool always, or only for a run, a sequence or some commands) "
             "is listed first; you can take it back here.")


@dataclass(frozen=True)
class ApprovalRow:
    tool: str
    description: str
    mode: str  # "ask" | "always-allow"
    available: bool = True  # False: the tool is not in the registry now (its server is offline)
    rules: tuple[RuleRow, ...] = ()  # narrower rules that let it run without asking


@dataclass(frozen=True)
class RuleRow:
    rule_id: str
    text: str  # the rule in words ("commands that start with `git status`")
    earlier_of: str | None = None  # made for an earlier version of this sequence: it allows nothing now


class ApprovalModesTable(ui.column):
    def __init__(self, rows: list[ApprovalRow], on_revoke: Callable[[str], Awaitable[None]]) -> None:
        super().__init__()
        self.classes("w-full gap-0")
        self._on_revoke = on_revoke
        with self:
            if not rows:
                ui.label(_("No tool needs approval right now.")).classes("text-gray-600 dark:text-gray-400")
            for row in rows:
                self._row(row)

    def _row(self, row: ApprovalRow) -> None:
        self._tool_row(row)
        for rule in row.rules:
            with ui.row(wrap=False).classes("w-full items-center gap-4 pl-6 py-1 text-sm "
                                            "border-b border-gray-100 dark:border-gray-800").mark(
                    f"approval-rule-{rule.rule_id}"):
                words = rule_text_words(rule.text, _)
                if rule.earlier_of is None:
                    ui.icon("subdirectory_arrow_right").classes("opacity-60")
                    ui.label(_("Runs without asking: {rule}").format(rule=words)).classes("grow min-w-0 break-words")
                else:
                    ui.icon("history").classes("opacity-60")
                    with ui.column().classes("gap-0 grow min-w-0").mark(f"approval-rule-earlier-{rule.rule_id}"):
                        ui.label(_("For an earlier version of '{sequence}': it allows nothing now, so that step "
                                   "asks you again.").format(sequence=rule.earlier_of)).classes("break-words")
                        ui.label(words).classes("text-gray-600 dark:text-gray-400 line-through break-words")
                ui.button(_("Remove"), icon="delete", on_click=lambda r=rule.rule_id: self._on_revoke(r)).props(
                    "outline dense no-caps").mark(f"revoke-rule-{rule.rule_id}")

    def _tool_row(self, row: ApprovalRow) -> None:
        with ui.row(wrap=False).classes(
                "w-full items-center gap-4 "
                "py-2 border-b border-gray-100 dark:border-gray-800").mark(
                f"approval-{row.tool}"):
            with ui.column().classes("gap-0 grow min-w-0"):
                ui.label(row.tool).classes(f"font-mono font-medium {DATA}")
                text = row.description if row.available else _("Not available right now (its server is offline).")
                described = ui.label(text).classes("text-sm text-gray-600 dark:text-gray-400")
                if "." in row.tool and row.available:  # a server's tool: its own words, as the server wrote them
                    described.classes(DATA)
            if row.mode == "always-allow":
                with ui.row(wrap=False).classes(
                        "items-center gap-1 "
                        "text-orange-700 dark:text-orange-300 whitespace-nowrap"):
                    ui.icon("bolt")
                    ui.label(_("Always allowed"))
                ui.button(_("Ask every time"), icon="undo",
                          on_click=lambda t=row.tool: self._on_revoke(tool_rule_id(t))).props(
                    "outline dense no-caps").mark(f"revoke-{row.tool}")
            else:
                with ui.row(wrap=False).classes(
                        "items-center gap-1 "
                        "text-gray-700 dark:text-gray-300 whitespace-nowrap"):
                    ui.icon("front_hand")
                    applies = any(rule.earlier_of is None for rule in row.rules)
                    ui.label(_("Asks, except where a rule below allows") if applies else _("Asks every time"))


async def approval_rows(engine: Operations) -> list[ApprovalRow]:
    rules, earlier = await engine.approval_rules(), await engine.earlier_version_rules()
    tools = {t.name: t for t in (await engine.list_tools()).tools}
    modes = {r.tool: "always-allow" for r in rules if r.scope == "tool"}
    narrower: dict[str, list[RuleRow]] = {}
    for rule in rules:
        if rule.scope != "tool":
            narrower.setdefault(rule.tool, []).append(
                RuleRow(rule.rule_id, rule.text, rule.sequence if rule.rule_id in earlier else None))
    named = {t.name for t in tools.values() if t.approval != "none"} | set(modes) | set(narrower)
    rows = []
    for name in named:
        tool = tools.get(name)
        described = (_(tool.description) if tool else
                     _("Programs on this computer that ask you (seqdesk ask)") if name == PROGRAMS else "")
        rows.append(ApprovalRow(name, described, modes.get(name, "ask"),
                                available=tool is not None or name == PROGRAMS, rules=tuple(narrower.get(name, ()))))
    return sorted(rows, key=lambda r: (r.mode != "always-allow", not r.rules, r.tool))


async def approvals_card(engine: Operations) -> None:
    """The card: what asks, what was allowed, and taking it back."""
    with ui.card().classes("w-full gap-2 p-4").props("flat bordered"):
        ui.label(_("Approvals")).classes("text-lg font-semibold")
        ui.label(_(EXPLAINED)).classes("text-sm text-gray-600 dark:text-gray-400").mark("approvals-explained")

        @ui.refreshable
        async def approvals() -> None:
            ApprovalModesTable(await approval_rows(engine), on_revoke=revoke)

        async def revoke(rule_id: str) -> None:
            try:
                rule = await engine.revoke_approval_rule(rule_id)
            except LookupError:
                ui.notify(_("That rule is gone already"))
            else:
                ui.notify(_("{tool} asks every time again").format(tool=rule.tool) if rule.scope == "tool"
                          else _("Removed: {rule}").format(rule=rule.text))
            approvals.refresh()

        await approvals()
