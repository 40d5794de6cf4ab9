"""Who answers a group's requests, in words (issue 26): the people and roles who may answer, how many must
approve, whether the person who started the run may approve it too, and what happens while nobody
answers (a reminder, someone else asked as well, the request ending). Each field writes one key of the
format (`gui.core.sequences.asking`); the validator checks them as it checks the rest.

That is a team server's concept: on the desktop one person answers everything, so the editor there draws
no such fields (`DesktopAnswerers`): only, for a group written for a team, one line saying what it holds.
"""

from __future__ import annotations

import json
from typing import Any

from nicegui import ui

from gui.core.sequences import ASKING_KEYS, split_target
from gui.i18n import DATA, _
from gui.ui.editor.context import EditorContext
from gui.ui.editor.draft import GroupDraft
from gui.ui.editor.fields import ErrorLabel

_CHIPS = "use-chips hide-dropdown-icon outlined dense"


def _names(targets: Any, kind: str) -> list[str]:
    if not isinstance(targets, list):
        return []
    found = [split_target(t) for t in targets if isinstance(t, str)]
    return [pair[1] for pair in found if pair is not None and pair[0] == kind]


def asking_words(group: GroupDraft) -> str | None:
    """"Answered by li.wei or anyone on oncall · 2 must approve", for the group's summary on a team server;
    None: anyone, once."""
    asking = group.asking
    people, roles = _names(asking.get("approvers"), "person"), _names(asking.get("approvers"), "role")
    parts: list[str] = []
    if people or roles:
        who = [*people, *(_("anyone with the role {role}").format(role=r) for r in roles)]
        parts.append(_("Answered by {who}").format(who=_(" or ").join(who)))
    required = asking.get("required")
    if isinstance(required, int) and not isinstance(required, bool) and required > 1:
        parts.append(_("{n} must approve").format(n=required))
    return " · ".join(parts) or None


class DesktopAnswerers(ui.column):
    """On the desktop: nothing for a group that names no answerers; for one written for a team, what it
    names, kept as written, and that here the person answers its requests (its problems show here too)."""

    def __init__(self, ctx: EditorContext, group: GroupDraft) -> None:
        super().__init__()
        self.classes("w-full gap-1").mark("answerers-desktop")
        written = {key: value for key, value in group.asking.items() if value not in (None, "", [])}
        with self:
            if written:
                keys = ", ".join(f"{key} {json.dumps(value, ensure_ascii=False)}" for key, value in written.items())
                ui.label(_("Written for a team's SeqDesk, kept as written (edit it in the Text view): {keys}. "
                           "On this computer you answer its requests yourself.").format(keys=keys)) \
                    .classes(f"text-sm opacity-80 {DATA}").mark("group-asking-desktop")
            error = ErrorLabel()
        for key in ASKING_KEYS:
            ctx.fields.register(f"{group.uid}.{key}", self, error)
        self.set_visibility(bool(written))


class AnswerersSection(ui.column):
    def __init__(self, ctx: EditorContext, group: GroupDraft) -> None:
        super().__init__()
        self.classes("w-full gap-2").mark("answerers")
        self.ctx, self.group = ctx, group
        asking = group.asking
        with self:
            ui.label(_("Who answers its requests")).classes("text-base font-medium")
            ui.label(_("For a team's SeqDesk, where people sign in. On your own computer you answer everything "
                       "yourself, once.")).classes("text-sm opacity-80")
            with ui.row().classes("w-full gap-4 items-start sd-stack"):
                people = _names(asking.get("approvers"), "person")
                self.people = ui.select(people, value=people, multiple=True, new_value_mode="add-unique",
                                        label=_("People who may answer"), on_change=self._set_approvers) \
                    .props(_CHIPS).classes("w-72").mark("group-approver-people")
                self.people.props['hint'] = _("Type a name and press Enter")
                roles = _names(asking.get("approvers"), "role")
                self.roles = ui.select(roles, value=roles, multiple=True, new_value_mode="add-unique",
                                       label=_("Roles whose people may answer"), on_change=self._set_approvers) \
                    .props(_CHIPS).classes("w-72").mark("group-approver-roles")
                self.roles.props['hint'] = _("Empty, both: anyone who may answer")
            approvers_error = ErrorLabel()
            ctx.fields.register(f"{group.uid}.approvers", self.people, approvers_error)
            with ui.row().classes("w-full gap-4 items-start sd-stack"):
                required = ui.number(_("How many must approve"), value=asking.get("required", 1), min=1, step=1,
                                     precision=0, on_change=self._set_required).classes("w-48") \
                    .mark("group-required")
                required.props['hint'] = _("Different people; a single refusal stops it")
                self_approve = ui.switch(_("Whoever started the run may approve it too"),
                                         value=bool(asking.get("self_approve", False)),
                                         on_change=lambda e: self._set("self_approve", bool(e.value) or None)) \
                    .mark("group-self-approve")
            ctx.fields.register(f"{group.uid}.required", required)
            ctx.fields.register(f"{group.uid}.self_approve", self_approve, ErrorLabel())
            with ui.row().classes("w-full gap-4 items-start sd-stack"):
                remind = self._duration("remind_after", _("Remind them after"), _("Such as 30m or 4h; empty: never"))
                escalate = self._duration("escalate_after", _("Also ask others after"),
                                          _("Then the people in “Others to ask” are asked too"))
                others = [t for t in asking.get("escalate_to") or [] if isinstance(t, str)]
                self.escalate_to = ui.select(others, value=others, multiple=True, new_value_mode="add-unique",
                                             label=_("Others to ask"),
                                             on_change=self._set_escalate_to) \
                    .props(_CHIPS).classes("w-72").mark("group-escalate-to")
                self.escalate_to.props['hint'] = _("Type role:NAME or person:NAME and press Enter")
                expire = self._duration("expire_after", _("Ends unanswered after"),
                                        _("An approval is then denied; a question takes its default"))
            ctx.fields.register(f"{group.uid}.remind_after", remind)
            ctx.fields.register(f"{group.uid}.escalate_after", escalate)
            ctx.fields.register(f"{group.uid}.escalate_to", self.escalate_to)
            ctx.fields.register(f"{group.uid}.expire_after", expire)

    def _duration(self, key: str, label: str, hint: str) -> ui.input:
        field = ui.input(label, value=str(self.group.asking.get(key) or ""),
                         on_change=lambda e: self._set(key, (e.value or "").strip() or None)) \
            .classes("w-48").mark(f"group-{key.replace('_', '-')}")
        field.props['hint'] = hint
        return field

    def _set(self, key: str, value: Any) -> None:
        if value is None:
            self.group.asking.pop(key, None)
        else:
            self.group.asking[key] = value
        self.ctx.changed()

    def _set_approvers(self, _event: Any = None) -> None:
        targets = [f"person:{p}" for p in self.people.value or []] + [f"role:{r}" for r in self.roles.value or []]
        self._set("approvers", targets or None)

    def _set_escalate_to(self, e: Any) -> None:
        self._set("escalate_to", list(e.value or []) or None)

    def _set_required(self, e: Any) -> None:
        value = e.value
        self._set("required", int(value) if isinstance(value, int | float) and value != 1 else None)
