"""The notification settings (`gui.notify.SettingsStore`) on a team's database: one row of the
`preferences` table (`notifications`), its secret parts (the webhook and ntfy addresses, which may
carry a token, and the SMTP password) encrypted with the team's `SEQDESK_SECRET_KEY` (`PgSecrets.seal`),
never plain. A change is told to the team's other processes as every preference is (`PREFERENCES`),
whose notifier reads the settings again (`gui.context`).
"""

from __future__ import annotations

from typing import Any

from gui.core.errors import Invalid
from gui.i18n import _
from gui.mcp.secrets import SecretStoreError
from gui.notify import NotifySettings
from gui.pgstore.preferences import PgPreferenceTable
from gui.pgstore.secrets import PgSecrets

NAME = "notifications"
SEALED = ("webhook_url", "ntfy_url", "smtp_password")  # kept encrypted, under "sealed"


class PgNotifySettings:
    def __init__(self, table: PgPreferenceTable, secrets: PgSecrets) -> None:
        self._table, self._secrets = table, secrets

    def load(self) -> NotifySettings:
        doc = self._table.named(NAME).read()
        sealed = doc.pop("sealed", None)
        plain = {name: self._secrets.unseal(token) for name, token in (sealed or {}).items()
                 if name in SEALED and isinstance(token, str)}
        data: dict[str, Any] = {**doc, "webhook_url": plain.get("webhook_url"), "ntfy_url": plain.get("ntfy_url")}
        if isinstance(data.get("smtp"), dict):
            data["smtp"] = {**data["smtp"], "password": plain.get("smtp_password")}
        try:
            return NotifySettings.model_validate(data)
        except ValueError:
            return NotifySettings()

    def save(self, settings: NotifySettings) -> None:
        doc = settings.model_dump(mode="json", exclude={"webhook_url", "ntfy_url"})
        secret = {"webhook_url": settings.webhook_url, "ntfy_url": settings.ntfy_url,
                  "smtp_password": (settings.smtp.password.get_secret_value()
                                    if settings.smtp is not None and settings.smtp.password is not None else None)}
        if doc.get("smtp") is not None:
            doc["smtp"].pop("password", None)
        try:
            doc["sealed"] = {name: self._secrets.seal(value) for name, value in secret.items() if value}
        except SecretStoreError:
            raise Invalid(_("the notification settings hold a secret (an address or a password), and this team "
                               "server cannot keep secrets: start it with SEQDESK_SECRET_KEY set")) from None
        self._table.named(NAME).replace(doc)
