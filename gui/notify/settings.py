"""What a person set for notifications, kept in `<data folder>/notifications.json` (0600), or on a
team's database by `gui.pgstore.notify_settings` (its secret parts encrypted): both are `SettingsStore`.

The SMTP password is a secret: it is kept, used to log in, and never given back (`public()` says
only whether one is set). A change that leaves `password` out keeps the one already kept; an empty
string removes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from gui.i18n import N_, _
from gui.prefs import PrefsFile

Security = Literal["starttls", "ssl", "none"]


def check_url(value: str | None, what: str) -> str | None:
    if value is None or not value.strip():
        return None
    value = value.strip()
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(_("the {what} must be a web address starting with http:// or https:// (got {value})").format(
            what=_(what), value=repr(value[:80])))
    if any(c.isspace() for c in value):
        raise ValueError(_("the {what} must not contain spaces").format(what=_(what)))
    return value


class SmtpSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    host: str = Field(min_length=1, max_length=255)
    port: int = Field(default=587, ge=1, le=65535)
    security: Security = "starttls"
    username: str | None = Field(default=None, max_length=255)
    password: SecretStr | None = None
    from_addr: str = Field(min_length=3, max_length=255, pattern=r"^[^@\s]+@[^@\s]+$")
    to_addr: str = Field(min_length=3, max_length=255, pattern=r"^[^@\s]+@[^@\s]+$")

    def public(self) -> dict[str, Any]:
        data = self.model_dump(exclude={"password"})
        data["password_set"] = bool(self.password and self.password.get_secret_value())
        return data


class NotifySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    webhook_url: str | None = None
    ntfy_url: str | None = None
    smtp: SmtpSettings | None = None
    on_requests: bool = True  # a request needs the person
    on_failures: bool = True  # a run failed

    @field_validator("webhook_url")
    @classmethod
    def _webhook(cls, value: str | None) -> str | None:
        return check_url(value, N_("webhook address"))

    @field_validator("ntfy_url")
    @classmethod
    def _ntfy(cls, value: str | None) -> str | None:
        checked = check_url(value, N_("ntfy topic address"))
        if checked is not None and not urlsplit(checked).path.strip("/"):
            raise ValueError(_("the ntfy address must name a topic, for example https://ntfy.sh/my-seqdesk"))
        return checked

    def channels(self) -> list[str]:
        return [name for name, on in (("webhook", self.webhook_url), ("ntfy", self.ntfy_url), ("email", self.smtp))
                if on]

    def public(self) -> dict[str, Any]:
        """What GET answers: everything but the SMTP password."""
        return {"webhook_url": self.webhook_url, "ntfy_url": self.ntfy_url,
                "smtp": self.smtp.public() if self.smtp is not None else None,
                "on_requests": self.on_requests, "on_failures": self.on_failures}


class SmtpInput(BaseModel):
    """SMTP as sent by PUT: `password` left out keeps the kept one."""

    model_config = ConfigDict(extra="forbid")

    host: str = Field(min_length=1, max_length=255)
    port: int = Field(default=587, ge=1, le=65535)
    security: Security = "starttls"
    username: str | None = Field(default=None, max_length=255)
    password: str | None = Field(default=None, max_length=1000)
    from_addr: str = Field(min_length=3, max_length=255, pattern=r"^[^@\s]+@[^@\s]+$")
    to_addr: str = Field(min_length=3, max_length=255, pattern=r"^[^@\s]+@[^@\s]+$")
    password_set: bool | None = None  # GET's answer sent back as it was: ignored


class SettingsInput(BaseModel):
    """The body of PUT /api/settings/notifications (and what the Settings card saves)."""

    model_config = ConfigDict(extra="forbid")

    webhook_url: str | None = None
    ntfy_url: str | None = None
    smtp: SmtpInput | None = None
    on_requests: bool = True
    on_failures: bool = True

    @model_validator(mode="before")
    @classmethod
    def _blank_smtp(cls, value: Any) -> Any:
        if isinstance(value, dict) and isinstance(value.get("smtp"), dict) and not str(
                value["smtp"].get("host") or "").strip():
            return {**value, "smtp": None}  # an empty SMTP form: no email
        return value

    def merged(self, kept: NotifySettings) -> NotifySettings:
        smtp = None
        if self.smtp is not None:
            data = self.smtp.model_dump(exclude={"password_set"})
            if data["password"] is None and kept.smtp is not None and kept.smtp.password is not None:
                data["password"] = kept.smtp.password.get_secret_value()
            if data["password"] == "":
                data["password"] = None
            smtp = SmtpSettings.model_validate(data)
        return NotifySettings(webhook_url=self.webhook_url, ntfy_url=self.ntfy_url, smtp=smtp,
                              on_requests=self.on_requests, on_failures=self.on_failures)


class SettingsStore(Protocol):
    """Where the notification settings are kept (ValueError from `save`, with the reason, when they
    cannot be)."""

    def load(self) -> NotifySettings: ...

    def save(self, settings: NotifySettings) -> None: ...


class NotifySettingsStore:
    """The settings in the data folder's file (in memory without a folder)."""

    def __init__(self, folder: Path | None) -> None:
        self.file = PrefsFile(folder, "notifications")

    def load(self) -> NotifySettings:
        data = self.file.read()
        smtp = data.get("smtp")
        if isinstance(smtp, dict) and "password" in smtp:
            data["smtp"] = {**smtp}
        try:
            return NotifySettings.model_validate(data)
        except ValueError:
            return NotifySettings()

    def save(self, settings: NotifySettings) -> None:
        data = settings.model_dump(mode="json")
        if settings.smtp is not None:
            data["smtp"]["password"] = settings.smtp.password.get_secret_value() if settings.smtp.password else None
        self.file.replace(data)
