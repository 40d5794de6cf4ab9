"""Notifications off the desktop: when a request needs the person, or a run fails, SeqDesk tells
the channels set in Settings (a webhook, an ntfy topic, email over SMTP).

`NotifySettings` (settings.py) is what is kept; `channels` sends one message over one channel;
`Notifier` (notifier.py) listens to the engine's events and sends from background tasks with
retries and backoff, so a slow or dead channel never holds up a run; what failed is kept for
Settings to show.
"""

from gui.notify.message import Notice
from gui.notify.notifier import ChannelStatus, Notifier
from gui.notify.settings import NotifySettings, NotifySettingsStore, SettingsInput, SettingsStore, SmtpSettings

__all__ = ["ChannelStatus", "Notice", "Notifier", "NotifySettings", "NotifySettingsStore", "SettingsInput",
           "SettingsStore", "SmtpSettings"]
