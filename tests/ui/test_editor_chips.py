"""Inputs inside text as marks (⤷host), never `$args.`: the conversions both ways."""

from __future__ import annotations

from gui.ui.editor.chips import from_display, put, refs, to_display, without


def test_a_reference_shows_as_a_mark_and_goes_back_unchanged() -> None:
    stored = "checked $args.host and $args.hostname, cost $args. too"
    shown = to_display(stored)
    assert shown == "checked ⤷host and ⤷hostname, cost $args. too"
    assert from_display(shown) == stored


def test_the_inputs_a_text_uses_are_listed_once_each_and_can_be_taken_out() -> None:
    stored = "ping $args.host then $args.host on $args.port"
    assert refs(stored) == ["host", "port"]
    assert without(stored, "host") == "ping then on $args.port"
    assert without("$args.hostname", "host") == "$args.hostname"
    assert put("", "host") == "$args.host"
    assert put("echo", "host") == "echo $args.host"


def test_core_messages_read_in_the_glossary_words_on_the_visual_view() -> None:
    from gui.wording.glossary import plain

    said = plain("'n' is string here but number in group 1; it reads $args.host, not null")
    assert said == "'n' is text here but number in group 1; it reads ⤷host, not nothing"
