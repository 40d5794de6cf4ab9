"""`seqdesk audit verify|export`: the decisions a `seqdesk run` made are on record, the chain is
proven unbroken, a hand edit is named in a sentence (exit 1), and the export prints JSON lines or CSV."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from support.cli import seqdesk

from gui.core.sequences.help import EXAMPLE


def denied_run(tmp_path: Path, data: Path) -> None:
    (tmp_path / "ex.json").write_text(EXAMPLE, encoding="utf-8")
    result = seqdesk("run", str(tmp_path / "ex.json"), "--args", '{"host": "a"}', "--json", data=data)
    assert result.returncode == 1, result.stderr  # no terminal and no --yes: the CLI denies the approval


def test_a_decision_made_at_the_command_line_is_recorded_and_the_chain_verifies(tmp_path, data):
    denied_run(tmp_path, data)  # its two steps each ask
    lines = seqdesk("audit", "export", "--since", "1h", data=data).stdout.splitlines()
    entries = [json.loads(line) for line in lines]
    decided = [(e["position"], e["by"], e["via"], e["decision"]) for e in entries]
    assert decided[0] == (1, "person", "cli", "denied")
    # the other step asked beside it: denied at the command line too, or cancelled when the first denial
    # had already ended the group (the run goes through the app, so which comes first is not fixed)
    assert decided[1] in ((2, "person", "cli", "denied"), (2, "stop", None, "cancelled"))
    assert "no terminal" in entries[0]["detail"] and "$ " in entries[0]["shown"]
    assert entries[1]["prev"] == entries[0]["hash"]
    result = seqdesk("audit", "verify", data=data)
    assert (result.returncode, result.stdout.strip()) == (0, "ok: the chain of 2 decisions is unbroken")


def test_an_entry_edited_by_hand_is_named_with_its_position_and_id_and_exit_1(tmp_path, data):
    denied_run(tmp_path, data)
    path = data / "audit.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    entry_id = json.loads(lines[0])["entry_id"]
    assert '"decision":"denied"' in lines[0]
    lines[0] = lines[0].replace('"decision":"denied"', '"decision":"approved"')
    path.write_text("".join(lines), encoding="utf-8")
    result = seqdesk("audit", "verify", "--data", str(data), data=data)
    assert result.returncode == 1
    assert result.stderr.strip() == (f"broken: the chain is broken at entry 1 (id {entry_id}): its contents were "
                                     "changed after it was written (its hash does not match them)")
    export = seqdesk("audit", "export", data=data)  # still printed, with the warning
    assert export.returncode == 0 and len(export.stdout.splitlines()) == 2 and "entry 1" in export.stderr


def test_the_csv_export_says_who_decided_in_words_and_since_filters(tmp_path, data):
    denied_run(tmp_path, data)
    rows = list(csv.DictReader(io.StringIO(seqdesk("audit", "export", "--format", "csv", data=data).stdout)))
    assert len(rows) == 2 and rows[0]["who"] == "You, at the command line (seqdesk run)"
    assert rows[0]["decision"] == "denied" and rows[0]["when"].endswith("+00:00")
    later = seqdesk("audit", "export", "--format", "csv", "--since", "2999-01-01", data=data).stdout
    assert later.splitlines() == [",".join(next(csv.reader(io.StringIO(later))))]


def test_an_empty_record_verifies_and_bad_options_are_said_with_exit_2(tmp_path, data):
    assert seqdesk("audit", "verify", data=data).stdout.strip() == "ok: no decisions are recorded yet"
    bad = seqdesk("audit", "export", "--since", "last week", data=data)
    assert bad.returncode == 2 and "--since 'last week' is neither a date or time" in bad.stderr
    missing = seqdesk("audit", "verify", "--data", str(tmp_path / "nowhere"), data=data)
    assert missing.returncode == 2 and "there is no data folder" in missing.stderr
