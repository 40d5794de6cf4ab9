"""Test-wide settings: the app's entry file runs with in-memory stores unless a test says otherwise."""

from __future__ import annotations

import os

os.environ.setdefault("SEQDESK_MEMORY", "1")
