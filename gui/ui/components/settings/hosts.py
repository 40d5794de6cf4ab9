"""Settings → Hosts: the machines a team's steps run on (`"on": "node-a"`), each with its state as
its worker last said it (up, down, stopped), looked at again every few seconds. Read-only: a host
joins by starting `seqdesk worker --name NAME` there, and leaves by stopping it."""

from __future__ import annotations

from nicegui import ui

from gui.core.door import Engine
from gui.core.errors import SeqDeskError
from gui.core.runs import HostInfo
from gui.i18n import DATA, N_, _, format_datetime

LOOK_EVERY = 5.0  # seconds between two looks at the hosts' states

STATE_WORDS = {"up": N_("Up"), "down": N_("Down: its worker stopped answering"),
               "stopped": N_("Stopped: its worker was ended")}
STATE_COLOURS = {"up": "positive", "down": "negative", "stopped": "grey"}
IN_PROCESS = N_("Here every step runs on this computer, so there are no hosts. When a team "
                "runs its sequences on Temporal (started with --executor temporal://host:port/namespace), a step can "
                "run on another machine: start a worker there, and write \"on\": NAME in the step.")
NONE_YET = N_("No host has started a worker yet. On each machine that should run steps, start:")
EXPLAINED = N_("Machines where a team's steps can run. A step runs on one when it says \"on\": NAME; its approval "
                "still comes to your inbox, and the card names the machine.")
JOIN = "seqdesk worker --name NAME --executor temporal://host:port/namespace"


def _row(host: HostInfo) -> None:
    with ui.row(wrap=False).classes("w-full items-start gap-3 py-2 border-b border-gray-100 dark:border-gray-800") \
            .mark(f"host-{host.name}"):
        with ui.column().classes("gap-0 grow min-w-0"):
            with ui.row(wrap=False).classes("items-center gap-3"):
                ui.label(host.name).classes(f"font-mono font-semibold truncate {DATA}")
                ui.badge(_(STATE_WORDS[host.state]), color=STATE_COLOURS[host.state]).mark(f"host-state-{host.name}")
            if host.worker:
                ui.label(_("worker: {worker}").format(worker=host.worker)).classes(
                    f"text-xs font-mono text-gray-500 dark:text-gray-400 {DATA}")
        if host.last_seen is not None:
            words = (N_("stopped {when}") if host.state == "stopped" else N_("last heard from {when}"))
            ui.label(_(words).format(when=format_datetime(host.last_seen))).classes(
                "text-sm text-gray-600 dark:text-gray-400 shrink-0")


async def hosts_card(engine: Engine) -> None:
    with ui.card().classes("w-full gap-2 p-4").props("flat bordered").mark("hosts-card"):
        ui.label(_("Hosts")).classes("text-lg font-semibold")
        ui.label(_(EXPLAINED)).classes("text-sm text-gray-600 dark:text-gray-400")
        if engine.host_book is None:
            ui.label(_(IN_PROCESS)).classes("text-sm text-gray-600 dark:text-gray-400").mark("hosts-none")
            return

        @ui.refreshable
        async def listing() -> None:
            try:
                hosts = await engine.hosts()
            except SeqDeskError as exc:
                ui.label(_("The hosts cannot be listed now: {reason}").format(reason=str(exc))).classes(
                    "text-sm text-negative").mark("hosts-error")
                return
            if not hosts:
                ui.label(_(NONE_YET)).classes("text-sm text-gray-600 dark:text-gray-400").mark("hosts-none")
                ui.label(JOIN).classes(f"font-mono text-sm {DATA}")
                return
            for host in hosts:
                _row(host)

        await listing()
        ui.timer(LOOK_EVERY, listing.refresh)
