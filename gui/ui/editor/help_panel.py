"""The "?" of the editor: a short guide for people who build by clicking, with a worked example.

Why two levels: someone using the visual editor needs groups, inputs, outputs, conditions and what
asks first, said in words and shown as a drawing; the text format (quotes, `;`, `$args`) matters to
agents and people who write the JSON, so its reference is one click further, folded away.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from nicegui import ui

from gui.core.sequences import EXAMPLE, help_text
from gui.i18n import N_, _, ngettext
from gui.wording.glossary import said, said_rule, said_type

GUIDE: list[tuple[str, str, str]] = [  # N_: translated where the panel shows them
    ("view_agenda", N_("Groups run one after another"),
     N_("A sequence is a list of groups. Group 1 runs first; when it is done, group 2 starts, and so on.")),
    ("call_split", N_("The tools in a group run together"),
     N_("All tools of a group start at the same time (or one by one, in order, if you choose so under Rules). "
        "The group is done when all of its tools are.")),
    ("login", N_("Inputs: what a group needs"),
     N_("The first group's inputs are asked for when you press Run. A later group can use what an earlier "
        "group gives back: pick it under Use an input, and it becomes an input of this group.")),
    ("logout", N_("Outputs: what a group gives back"),
     N_("Each tool can save its result under one of its group's outputs (Save result to). Later groups can "
        "use those outputs.")),
    ("rule", N_("Conditions: run a group only if…"),
     N_("A group can have rules on its inputs, like “host is not empty”. When they do not hold, the group is "
        "skipped and the next one runs.")),
    ("front_hand", N_("What asks you first"),
     N_("Some tools ask before they act: running a command waits for your approval, a question waits for your "
        "answer. The request appears in the Inbox and on the run's page; nothing happens until you answer.")),
]


def _box(title: str, lines: list[str], note: str = "") -> None:
    with ui.column().classes("gap-0 rounded px-3 py-2 min-w-[9rem] sd-box"):
        ui.label(title).classes("text-sm font-medium")
        if note:
            ui.label(note).classes("text-xs text-gray-700 dark:text-gray-300")
        for line in lines:
            ui.label(line).classes("text-xs text-gray-800 dark:text-gray-200")


def _arrow() -> None:
    ui.icon("arrow_forward").classes("text-xl text-gray-700 dark:text-gray-300 self-center shrink-0 sd-turn")


def worked_example() -> None:
    """The example as a drawing: what the person gives, the two groups in order, what comes back."""
    with ui.row().classes("w-full items-stretch gap-2 no-wrap sd-stack").mark("help-drawing"):
        _box(_("You, when you press Run"), [_("{name} · {type}").format(name="host", type=said_type("string"))],
             _("type a value"))
        _arrow()
        _box(_("Group {number} · {name}").format(number=1, name="fetch-one-node"),
             ["cmd_run uptime → summary", "cmd_run date → load"],
             _("{tools} · run together").format(tools=ngettext("{n} tool", "{n} tools", 2).format(n=2)))
        _arrow()
        _box(_("Group {number} · {name}").format(number=2, name="dig-deeper"), ["echo “checked ⤷ host” → detail"],
             _("Runs if: {rules}").format(rules=said_rule("host", "!=", "")))
    ui.label(_("Group 1 needs the input host, runs two commands at the same time (each asks for your approval "
               "first) and gives back summary and load. Then group 2 runs, only if host is not empty, and puts "
               "the input host inside its text.")).classes("text-sm")


class HelpPanel(ui.dialog):
    def __init__(self, on_insert_example: Callable[[], Awaitable[None]]) -> None:
        super().__init__()
        self.props("position=right full-height")

        async def start_from_example() -> None:
            self.close()
            await on_insert_example()

        with self, ui.card().classes("w-[46rem] max-w-[100vw] h-full gap-3 overflow-y-auto sd-editor sd-page") \
                .mark("help-panel"):
            with ui.row().classes("w-full items-center no-wrap"):
                ui.label(_("How the editor works")).classes("text-lg font-medium")
                ui.space()
                ui.button(icon="close", on_click=self.close).props("flat round").tooltip(_("Close"))
            for icon, title, text in GUIDE:
                with ui.row().classes("w-full items-start gap-3 no-wrap").mark("help-topic"):
                    ui.icon(icon, color="primary").classes("text-2xl shrink-0")
                    with ui.column().classes("gap-0"):
                        ui.label(said(title)).classes("font-medium")
                        ui.label(said(text)).classes("text-sm text-gray-800 dark:text-gray-200")
            ui.separator()
            ui.label(_("A worked example")).classes("font-medium")
            worked_example()
            ui.button(_("Start from the example"), icon="auto_fix_high", on_click=start_from_example) \
                .props("no-caps").mark("insert-example")
            ui.separator()
            with ui.expansion(_("The text format, for AI agents and developers"), icon="data_object") \
                    .classes("w-full").props("dense").mark("help-format"):
                ui.button(_("Copy the example"), icon="content_copy",
                          on_click=lambda: ui.clipboard.write(EXAMPLE)).props("flat no-caps")
                ui.label(help_text(_)).classes("whitespace-pre-wrap font-mono text-xs").mark("help-text")
