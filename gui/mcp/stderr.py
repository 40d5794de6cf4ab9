"""What a server run over stdio writes to stderr: kept in a private temporary file while its session
lives, so that when the server dies the connection can say what it last wrote."""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import TextIO, cast

_TAIL_BYTES = 4000


class StderrLog:
    """The file a stdio server's stderr goes to; `tail()` is its last lines, `close()` removes it."""

    def __init__(self) -> None:
        made = tempfile.NamedTemporaryFile("w", prefix="seqdesk-mcp-", suffix=".log", delete=False)
        self.file = cast(TextIO, made)  # what the SDK's stdio transport writes the server's stderr to

    def tail(self) -> str:
        """The last three lines it wrote, on one line (at most 600 characters); "" when it wrote nothing."""
        # Read through a handle of our own: the server shares the file offset of the one it writes to.
        try:
            with open(self.file.name, "rb") as f:
                size = f.seek(0, 2)
                f.seek(max(0, size - _TAIL_BYTES))
                text = f.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return " | ".join(lines[-3:])[-600:]

    def close(self) -> None:
        self.file.close()
        with contextlib.suppress(OSError):
            os.unlink(self.file.name)
