"""Where runs go when they run on Temporal: `temporal://host:port/namespace[?queue=NAME]`, read once.

The address comes from `--executor` or SEQDESK_EXECUTOR; a value that does not fit is an `Invalid`
that says what was given and what fits. The queue is the task queue of this app's runs (default
`seqdesk`): two apps on one namespace keep their runs apart by it. On a team's database each process
polls a queue of its own, named after it (`process_queue`): a run's workflow and steps go to the
process that holds the run, never to another process of the team.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from gui.core.errors import Invalid

SCHEME = "temporal"
DEFAULT_PORT = 7233
DEFAULT_NAMESPACE = "default"
DEFAULT_QUEUE = "seqdesk"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")


class ExecutorAddressError(Invalid):
    pass


@dataclass(frozen=True)
class TemporalTarget:
    host: str
    port: int = DEFAULT_PORT
    namespace: str = DEFAULT_NAMESPACE
    queue: str = DEFAULT_QUEUE

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def process_queue(self, process: str | None) -> str:
        """The task queue of the runs of the process named `process` (None: the one process of a data
        folder, on `queue` itself, as an app restarted on that folder finds them)."""
        return self.queue if process is None else f"{self.queue}.{process}"

    @property
    def url(self) -> str:
        return f"{SCHEME}://{self.address}/{self.namespace}?queue={self.queue}"


def parse_target(text: str) -> TemporalTarget:
    """`temporal://host:port/namespace`, with an optional `?queue=NAME`; ExecutorAddressError otherwise."""
    example = "temporal://127.0.0.1:7233/default"
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError as exc:
        raise ExecutorAddressError(
            f"the executor '{text}' is not an address ({exc}): write it like {example}") from None
    if parts.scheme != SCHEME or not parts.hostname:
        raise ExecutorAddressError(f"the executor '{text}' is not a Temporal address: write it like {example}")
    namespace = parts.path.strip("/") or DEFAULT_NAMESPACE
    queues = parse_qs(parts.query, keep_blank_values=True).get("queue", [DEFAULT_QUEUE])
    for what, name in (("namespace", namespace), ("queue", queues[-1])):
        if not _NAME.match(name):
            raise ExecutorAddressError(f"the executor '{text}' names the {what} '{name}': use 1 to 200 letters, "
                                       "digits, '.', '_' and '-'")
    return TemporalTarget(parts.hostname, port or DEFAULT_PORT, namespace, queues[-1])
