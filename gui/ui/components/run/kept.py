"""What a resumed run kept from the attempt before it, in words: the groups it did not run again and,
in the first group it ran again, the tools that had succeeded there (each carries `reused_from`).

Shared by the resume banner on the run page and `seqdesk run --resume`. Pure: no NiceGUI.
"""

from __future__ import annotations

from gui.core.runs import RunRecord
from gui.i18n import _, ngettext


def kept_groups(record: RunRecord) -> list[str]:
    return [g.name for g in record.groups if g.reused_from is not None]


def kept_tools(record: RunRecord) -> list[tuple[str, list[str]]]:
    """Per group that ran again, the tools it kept ("cmd_run (tool 1)"), in order."""
    found = []
    for group in record.groups:
        if group.reused_from is not None:
            continue
        tools = [_("{tool} (tool {number})").format(tool=t.tool, number=t.index + 1)
                 for t in group.tools if t.reused_from is not None]
        if tools:
            found.append((group.name, tools))
    return found


def kept_words(record: RunRecord) -> str:
    """ "kept the group prepare; in deploy, the tool cmd_run (tool 1)"; or that nothing was kept."""
    parts = []
    groups = kept_groups(record)
    if groups:
        parts.append(ngettext("the group {names}", "the groups {names}", len(groups)).format(
            names=", ".join(groups)))
    for group, tools in kept_tools(record):
        parts.append(ngettext("in {group}, the tool {names}", "in {group}, the tools {names}", len(tools)).format(
            group=group, names=", ".join(tools)))
    if not parts:
        return _("nothing was kept: it started from the first step")
    return _("kept what had succeeded: {what}").format(what=_("; ").join(parts))
