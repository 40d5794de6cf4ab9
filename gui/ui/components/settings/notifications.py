"""Settings → "Notifications": the notification channels, a test for each, and how
the last notice on each went (a failure reads as its sentence, with when).

It only edits and shows; the `Notifier` keeps the settings and sends (`gui.notify`).
"""

from __future__ import annotations

import time
from typing import Any

from nicegui import ui
from pydantic import ValidationError

from gui.i18n import N_, _, format_datetime
from gui.notify import Notifier, SettingsInput
from gui.notify.notifier import ChannelStatus
from gui.prefs import Prefs
from gui.ui.components.settings.mcp_form import problem_words

SECURITY = {"starttls": N_("STARTTLS (port 587)"), "ssl": N_("SSL (port 465)"),
            "none": N_("None (a local relay only)")}
WORDS = {"webhook": N_("Webhook"), "ntfy": "ntfy", "email": N_("Email")}


def status_words(status: ChannelStatus, now: float | None = None) -> str:
    now = time.time() if now is None else now
    if status.error:
        when = format_datetime(status.error_at or now, "time")
        return _("Last try failed at {time}: {problem}").format(time=when, problem=status.error)
    if status.retrying:
        return _("Trying again…")
    if status.ok_at:
        return _("Last sent at {time}").format(time=format_datetime(status.ok_at, "time"))
    return _("Nothing sent yet")


class NotificationsCard(ui.card):
    def __init__(self, notifier: Notifier | None, *, read_only: bool = False, prefs: Prefs | None = None) -> None:
        super().__init__()
        self.notifier = notifier
        self.prefs = prefs
        self.classes("w-full gap-2 p-4").props("flat bordered").mark("notify-card")
        with self:
            ui.label(_("Notifications")).classes("text-lg font-semibold")
            ui.label(_("When a request needs you, or a run fails, SeqDesk sends a message to each place set "
                       "here, with a link to answer it. A run never waits for these messages.")).classes(
                "text-sm text-gray-600 dark:text-gray-400")
            if notifier is None:
                ui.label(_("Not available until SeqDesk has started."))
                return
            settings = notifier.settings
            smtp = settings.smtp
            with ui.row().classes("gap-4"):
                self.on_requests = ui.checkbox(_("When a request needs me"), value=settings.on_requests).mark(
                    "notify-on-requests")
                self.on_failures = ui.checkbox(_("When a run fails"), value=settings.on_failures).mark(
                    "notify-on-failures")
            if prefs is not None and not read_only:
                ui.checkbox(_("Also pop up a notice on this computer when SeqDesk's window is in the background"),
                            value=prefs.read().get("desktop_notifications", True) is not False,
                            on_change=self._desktop).mark("notify-desktop")
            self.status: dict[str, ui.label] = {}
            self.webhook = self._channel("webhook", _("Webhook address (receives JSON)"), settings.webhook_url or "",
                                         "https://example.org/seqdesk-hook")
            self.ntfy = self._channel("ntfy", _("ntfy topic address"), settings.ntfy_url or "",
                                      "https://ntfy.sh/my-seqdesk-topic")
            with ui.expansion(_("Email"), icon="mail", value=smtp is not None).classes("w-full").mark("notify-email"):
                with ui.grid().classes("w-full gap-2 grid-cols-1 sm:grid-cols-2"):
                    self.host = ui.input(_("Mail server"), value=smtp.host if smtp else "",
                                         placeholder="smtp.example.org").mark("smtp-host")
                    self.port = ui.number(_("Port"), value=smtp.port if smtp else 587, min=1, max=65535,
                                          format="%d").mark("smtp-port")
                    self.security = ui.select({k: _(v) for k, v in SECURITY.items()},
                                              value=smtp.security if smtp else "starttls",
                                              label=_("Security")).mark("smtp-security")
                    self.username = ui.input(_("User name (optional)"), value=(smtp.username or "") if smtp else "")
                    self.password = ui.input(_("Password"), password=True, password_toggle_button=True,
                                             placeholder=_("kept") if smtp and smtp.password else "").mark(
                        "smtp-password")
                    self.from_addr = ui.input(_("From"), value=smtp.from_addr if smtp else "",
                                              placeholder="seqdesk@example.org").mark("smtp-from")
                    self.to_addr = ui.input(_("To"), value=smtp.to_addr if smtp else "",
                                            placeholder="me@example.org").mark("smtp-to")
                self._test_row("email")
            self.problem = ui.label("").classes("text-negative text-sm").mark("notify-problem")
            self.problem.set_visibility(False)
            save = ui.button(_("Save"), icon="save", on_click=self.save).props("unelevated no-caps").mark("notify-save")
            if read_only:
                save.disable()
                ui.label(_("Change these on the computer SeqDesk runs on.")).classes("text-sm")
        notifier.on_change.append(self._refresh_status)
        self.on("delete", lambda: notifier.on_change.remove(self._refresh_status)
                if self._refresh_status in notifier.on_change else None)
        self._refresh_status()

    def _desktop(self, event: Any) -> None:
        """Kept by the app (not only the browser's permission), read by every page's frame."""
        on = bool(event.value)
        assert self.prefs is not None
        self.prefs.update(desktop_notifications=on)
        ui.run_javascript(f"window.seqdesk && (seqdesk.desktopNotify = {'true' if on else 'false'})")

    def _channel(self, name: str, label: str, value: str, placeholder: str) -> ui.input:
        field = ui.input(label, value=value, placeholder=placeholder).classes("w-full").props(
            "inputmode=url").mark(f"notify-{name}")
        self._test_row(name)
        return field

    def _test_row(self, name: str) -> None:
        with ui.row().classes("items-center gap-2 w-full no-wrap"):
            ui.button(_("Send a test"), icon="send", on_click=lambda n=name: self.test(n)).props(
                "flat dense no-caps").mark(f"notify-test-{name}")
            self.status[name] = ui.label("").classes("text-sm text-gray-600 dark:text-gray-400 break-words").mark(
                f"notify-status-{name}")

    def given(self) -> SettingsInput:
        smtp = None
        if (self.host.value or "").strip():
            smtp = {"host": self.host.value.strip(), "port": int(self.port.value or 0),
                    "security": self.security.value, "username": (self.username.value or "").strip() or None,
                    "password": self.password.value or None, "from_addr": (self.from_addr.value or "").strip(),
                    "to_addr": (self.to_addr.value or "").strip()}
        return SettingsInput.model_validate({
            "webhook_url": self.webhook.value or None, "ntfy_url": self.ntfy.value or None, "smtp": smtp,
            "on_requests": bool(self.on_requests.value), "on_failures": bool(self.on_failures.value)})

    def save(self) -> bool:
        assert self.notifier is not None
        try:
            self.notifier.update(self.given())
        except ValidationError as exc:
            self._show_problem(problem_words(exc))
            return False
        except ValueError as exc:  # they cannot be kept (a team server without its secret key)
            self._show_problem(str(exc))
            return False
        self._show_problem("")
        self.password.value = ""
        self.password.props["placeholder"] = (_("kept") if self.notifier.settings.smtp and
                                              self.notifier.settings.smtp.password else "")
        self.password.update()
        ui.notify(_("Saved"))
        return True

    async def test(self, channel: str) -> None:
        assert self.notifier is not None
        if not self.save():
            return
        try:
            error = await self.notifier.send_test(channel)
        except ValueError as exc:
            ui.notify(str(exc).capitalize(), type="warning")
            return
        if error is None:
            ui.notify(_("{channel}: the test was sent").format(channel=_(WORDS[channel])), type="positive")
        else:
            ui.notify(f"{_(WORDS[channel])}: {error}", type="negative", multi_line=True)

    def _show_problem(self, text: str) -> None:
        self.problem.set_text(text)
        self.problem.set_visibility(bool(text))

    def _refresh_status(self) -> None:
        if self.notifier is None or self.is_deleted:
            return
        for name, label in self.status.items():
            status = self.notifier.status()[name]
            label.set_text(status_words(status))
            label.classes(replace="text-sm break-words " + (
                "text-negative" if status.error else "text-gray-600 dark:text-gray-400"))
