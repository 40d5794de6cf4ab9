"""Settings → "Use on your phone": open SeqDesk to this network, pair a phone with a one-time QR
code, list the paired phones with "Forget". On a paired phone the card only says it is paired.

The QR code holds a one-time pairing link, never the token; the phone's session is a cookie set
when it pairs (see `gui.api.pairing`).
"""

from __future__ import annotations

import time
from typing import Any

from nicegui import Client, background_tasks, core, ui

from gui.api.auth import DEVICE_SCOPE_KEY
from gui.api.pairing import qr_svg
from gui.i18n import DATA, _, format_datetime
from gui.phone import PhoneAccess


def disconnect_phone(phone_id: str) -> None:
    """Close the pages a forgotten phone still has open: each is told to reload (the gate then
    refuses it), and its connection is closed here whether it obeys or not."""
    for client in list(Client.instances.values()):
        try:
            if client.request.scope.get(DEVICE_SCOPE_KEY) == phone_id:
                background_tasks.create(_close(client), name="seqdesk forget phone")
        except Exception:  # noqa: BLE001 - a page half gone: it has nothing left to show
            continue


async def _close(client: Client) -> None:
    try:  # the answer proves the page got the message before its connection goes
        await client.run_javascript("setTimeout(() => location.reload(), 0); 1", timeout=2.0)
    except Exception:  # noqa: BLE001 - no answer: close it all the same
        pass
    for socket_id in list(client._socket_to_document_id):
        await core.sio.disconnect(socket_id)
    if not client.is_deleted:
        client.delete()


def _when(at: float) -> str:
    return format_datetime(at)


class PhoneCard(ui.card):
    def __init__(self, phone: PhoneAccess | None, *, on_phone: bool) -> None:
        super().__init__()
        self.phone = phone
        self.classes("w-full gap-2 p-4").props("flat bordered").mark("phone-card")
        self.link: dict[str, Any] = {}
        with self:
            ui.label(_("Use on your phone")).classes("text-lg font-semibold")
            if phone is None:
                ui.label(_("Not available in this window."))
                return
            if on_phone:
                ui.label(_("This phone is paired with SeqDesk: you can answer requests here. Phones are "
                           "paired and forgotten in Settings on the computer.")).mark("phone-paired-here")
                return
            ui.label(_("Answer requests from your phone while it is on the same network (Wi-Fi) as this "
                       "computer. Each phone is paired once, by scanning a code shown here; nothing else on "
                       "the network can open SeqDesk.")).classes("text-sm text-gray-600 dark:text-gray-400")
            self.body()
        def refresh() -> None:
            self.body.refresh()

        phone.on_change.append(refresh)
        self.on("delete", lambda: phone.on_change.remove(refresh) if refresh in phone.on_change else None)

    @ui.refreshable_method
    def body(self) -> None:
        phone = self.phone
        assert phone is not None
        ui.switch(_("Let paired phones on this network open SeqDesk"), value=phone.on,
                  on_change=self._switch).mark("phone-switch")
        if phone.problem:
            ui.label(phone.problem).classes("text-negative text-sm").mark("phone-problem")
        if phone.on and phone.url:
            with ui.row().classes("items-center gap-2"):
                ui.label(_("Phones open it at"))
                ui.label(phone.url).classes(f"font-mono break-all {DATA}").mark("phone-url")
            ui.label(_("The connection on the network is not encrypted: use it on a network you trust, such "
                       "as your home or office Wi-Fi.")).classes("text-sm text-gray-600 dark:text-gray-400")
            ui.button(_("Pair a phone"), icon="qr_code_2", on_click=self._pair).props("unelevated no-caps").mark(
                "phone-pair")
            left = self.link.get("until", 0) - time.monotonic()
            if left > 0:
                ui.timer(left, self.body.refresh, once=True)  # the code has expired: take it away
                with ui.column().classes("items-start gap-1").mark("phone-qr"):
                    ui.image(qr_svg(self.link["url"])).classes("w-56 h-56").props("no-spinner no-transition")
                    ui.label(_("Scan this with the phone's camera, then tap “Pair this phone”. The code works "
                               "once, for 2 minutes.")).classes("text-sm")
                    ui.label(self.link["url"]).classes(f"font-mono text-xs break-all text-gray-500 {DATA}").mark(
                        "phone-link")
        phones = phone.phones.list()
        ui.label(_("Paired phones")).classes("font-semibold mt-2")
        if not phones:
            ui.label(_("None yet.")).classes("text-sm text-gray-600 dark:text-gray-400").mark("phone-none")
        for item in phones:
            with ui.row().classes("w-full items-center gap-2 no-wrap").mark(f"phone-{item.phone_id}"):
                ui.icon("smartphone")
                with ui.column().classes("gap-0 grow min-w-0"):
                    ui.label(item.name).classes(DATA)  # named when it paired (its browser's words)
                    ui.label(_("Paired {paired} · last seen {seen}").format(
                        paired=_when(item.paired_at), seen=_when(item.last_seen))).classes(
                        "text-xs text-gray-600 dark:text-gray-400")
                ui.button(_("Forget"), icon="link_off", on_click=lambda p=item.phone_id: self._forget(p)).props(
                    "flat no-caps color=negative").mark(f"phone-forget-{item.phone_id}")

    async def _switch(self, event: Any) -> None:
        phone = self.phone
        assert phone is not None
        if bool(event.value) == phone.on:
            return
        if event.value:
            problem = await phone.turn_on(core.app)
            ui.notify(problem or _("Paired phones on this network can open SeqDesk now"),
                      type="warning" if problem else "positive")
        else:
            self.link = {}
            await phone.turn_off()
            ui.notify(_("SeqDesk is closed to the network again"))

    def _pair(self) -> None:
        phone = self.phone
        assert phone is not None
        url, seconds = phone.pairing_link()
        self.link = {"url": url, "until": time.monotonic() + seconds}
        self.body.refresh()

    def _forget(self, phone_id: str) -> None:
        assert self.phone is not None
        if self.phone.forget(phone_id):
            ui.notify(_("Forgotten: that phone cannot open SeqDesk any more"))
