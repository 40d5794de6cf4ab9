"""Where the end-to-end tests put their screenshots: never into tracked files unless asked to."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from support.app import ROOT
from support.browser import screenshot_dir


def test_screenshots_go_to_a_folder_git_ignores_by_default(monkeypatch):
    monkeypatch.delenv("SEQDESK_SCREENSHOTS", raising=False)
    folder = screenshot_dir()
    assert folder.is_dir() and folder.is_relative_to(ROOT / "build")
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(["git", "check-ignore", "-q", str(folder / "settings.png")], cwd=ROOT, timeout=30)
    assert ignored.returncode == 0, f"{folder} is not ignored by git"


def test_the_readme_pictures_are_written_only_when_asked_for(monkeypatch, tmp_path):
    monkeypatch.setenv("SEQDESK_SCREENSHOTS", "assets/screenshots")
    assert screenshot_dir() == ROOT / "assets" / "screenshots"
    monkeypatch.setenv("SEQDESK_SCREENSHOTS", str(tmp_path / "shots"))
    assert screenshot_dir() == tmp_path / "shots" and (tmp_path / "shots").is_dir()
