"""A setting from the environment SeqDesk cannot use ends the command with a sentence naming it (exit 2),
never a traceback."""

from __future__ import annotations

from support.cli import seqdesk


def test_a_setting_that_cannot_be_used_is_named_in_a_sentence(data, monkeypatch):
    for value, words in (("soon", "Input should be a valid number"), ("-1", "Input should be greater than 0")):
        monkeypatch.setenv("SEQDESK_LEASE", value)
        done = seqdesk("list", data=data)
        assert done.returncode == 2
        assert f"SEQDESK_LEASE (or its flag): {words}" in done.stderr
        assert "Traceback" not in done.stderr
