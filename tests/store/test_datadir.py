"""data_dir: SEQDESK_DATA or the platform folder, created, and refused with a clear sentence if unusable."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from gui.store.datadir import DataFolderError, data_dir


def test_seqdesk_data_is_used_and_created(tmp_path):
    target = tmp_path / "a" / "b"
    assert data_dir({"SEQDESK_DATA": str(target)}) == target
    assert target.is_dir()


def test_without_seqdesk_data_the_platform_user_data_folder_is_used(tmp_path, monkeypatch):
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name, appauthor=None: str(tmp_path / name))
    assert data_dir({}) == tmp_path / "SeqDesk"
    assert data_dir({"SEQDESK_DATA": "  "}) == tmp_path / "SeqDesk"


def test_a_relative_seqdesk_data_becomes_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert data_dir({"SEQDESK_DATA": "rel"}) == tmp_path / "rel"


@pytest.mark.parametrize("under_a_file", [False, True])
def test_a_folder_that_cannot_be_created_is_refused_with_a_hint(tmp_path, under_a_file):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    target = blocker / "data" if under_a_file else blocker
    with pytest.raises(DataFolderError) as caught:
        data_dir({"SEQDESK_DATA": str(target)})
    message = str(caught.value)
    assert message.startswith(f"Cannot use the data folder {Path(target)}: ")
    assert "SEQDESK_DATA" in message
    assert caught.value.code == "data-folder-unusable"
