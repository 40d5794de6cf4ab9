"""What the approval showed is what file_write writes and file_read reads, through the real engine.

Each test starts a run whose file step waits for its approval, swaps the file or a folder on its
path for a link (or another folder) while the request waits, and only then approves: the step is
refused with the reason in the run record, and nothing is written outside / no secret is read. An
unchanged path, a new file, a relative path and made folders still work.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.builders import group, seq, tools
from support.waiting import within

from gui.core.events import InteractionCreated
from gui.core.runs.records import RunRecord
from gui.core.tools.registry import Registry
from gui.memory import MemoryStores
from gui.runtime import compose_engine
from gui.tools import builtin_tools

T = 10.0
SECRET = "the secret nobody approved to read"


async def run_step(step: dict[str, Any], out: dict[str, str], meanwhile: Callable[[], None] = lambda: None,
                   answer: dict[str, Any] | None = None) -> RunRecord:
    """Run one step, do `meanwhile` while its approval waits, then approve it (with `answer`)."""
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    asked: asyncio.Queue[str] = asyncio.Queue()
    engine.subscribe(lambda e: asked.put_nowait(e.interaction_id) if isinstance(e, InteractionCreated) else None)
    try:
        await engine.create(seq(group("g", out=out, tools=tools(step))))
        run = await engine.start("s", {})
        iid = await within(asked.get(), "the approval request")
        meanwhile()
        await engine.respond(iid, {"kind": "approval", "decision": "approved", **(answer or {})})
        return await engine.runner.wait(run.run_id, T)
    finally:
        await engine.close()


def write_step(path: Path | str, content: str = "written by the step", **more: Any) -> dict[str, Any]:
    return {"tool": "file_write", "args": {"path": str(path), "content": content, **more}, "as": "done"}


def read_step(path: Path | str) -> dict[str, Any]:
    return {"tool": "file_read", "args": {"path": str(path)}, "as": "text"}


WROTE = {"done": "object"}
READ = {"text": "string"}


def error_of(record: RunRecord) -> str:
    return record.groups[0].tools[0].error or ""


def swap_for_link(path: Path, to: Path) -> Callable[[], None]:
    """Put a link to `to` where `path` is (moving what was there aside, to `path`.orig)."""
    def swap() -> None:
        if path.exists():
            path.rename(path.with_name(path.name + ".orig"))
        path.symlink_to(to)
    return swap


@pytest.fixture
def place(tmp_path: Path) -> dict[str, Path]:
    """`work/sub/out.txt` (approved) and, outside, `secret/` with a file the person never approved."""
    (tmp_path / "work" / "sub").mkdir(parents=True)
    (tmp_path / "work" / "sub" / "out.txt").write_text("old")
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "out.txt").write_text(SECRET)
    return {"work": tmp_path / "work", "sub": tmp_path / "work" / "sub", "file": tmp_path / "work" / "sub" / "out.txt",
            "secret": tmp_path / "secret", "victim": tmp_path / "secret" / "out.txt"}


# -- file_write ------------------------------------------------------------------------------------

@pytest.mark.parametrize("append", [False, True])
async def test_a_file_swapped_for_a_link_while_the_write_waits_is_refused(place, append):
    record = await run_step(write_step(place["file"], append=append), WROTE,
                            meanwhile=swap_for_link(place["file"], place["victim"]))
    assert place["victim"].read_text() == SECRET  # nothing written outside
    assert place["file"].is_symlink()  # and the link was not replaced either
    assert record.status == "failed"
    assert error_of(record) == f"nothing was written: {place['file']} became a link after the write was approved"


async def test_a_link_put_where_a_new_file_was_to_be_written_is_refused(place):
    target = place["sub"] / "new.txt"
    record = await run_step(write_step(target), WROTE, meanwhile=swap_for_link(target, place["victim"]))
    assert place["victim"].read_text() == SECRET
    assert error_of(record) == (f"nothing was written: {target} did not exist when the write was approved, "
                                "and now it does")


async def test_a_folder_swapped_for_a_link_while_the_write_waits_is_refused(place):
    record = await run_step(write_step(place["file"]), WROTE, meanwhile=swap_for_link(place["sub"], place["secret"]))
    assert place["victim"].read_text() == SECRET
    assert sorted(p.name for p in place["secret"].iterdir()) == ["out.txt"]  # no temporary file left there either
    assert error_of(record) == f"nothing was written: {place['sub']} became a link after the write was approved"


def test_the_reasons_are_said_in_chinese_on_screen(place):
    from gui import i18n
    from gui.tools._approved_path import Changed
    from gui.wording.outcomes import core_words

    said = {str(Changed("write", "link", place["sub"])): f"未写入任何内容：批准写入后，{place['sub']} 变成了链接",
            str(Changed("read", "created", place["file"])):
                f"未读取任何内容：批准读取时 {place['file']} 还不存在，现在却存在了"}
    with i18n.use_language("zh-CN"):
        assert {english: core_words(english) for english in said} == said


async def test_a_folder_replaced_by_another_folder_while_the_write_waits_is_refused(place):
    def replace() -> None:
        place["sub"].rename(place["work"] / "sub.orig")
        place["secret"].rename(place["sub"])  # another real folder, moved to the approved place
    record = await run_step(write_step(place["file"]), WROTE, meanwhile=replace)
    assert (place["sub"] / "out.txt").read_text() == SECRET
    assert error_of(record) == (f"nothing was written: {place['sub']} was moved or replaced after the write "
                                "was approved")


async def test_a_file_replaced_by_another_file_while_the_append_waits_is_refused(place):
    def replace() -> None:
        place["file"].unlink()
        os.link(place["victim"], place["file"])  # a hard link: the same name, someone else's file
    record = await run_step(write_step(place["file"], append=True), WROTE, meanwhile=replace)
    assert place["victim"].read_text() == SECRET
    assert "was moved or replaced after the write was approved" in error_of(record)


async def test_an_unchanged_file_is_written_after_the_approval(place):
    record = await run_step(write_step(place["file"], "new text"), WROTE)
    assert record.status == "succeeded", error_of(record)
    assert place["file"].read_text() == "new text"
    assert record.outputs["done"] == {"path": str(place["file"]), "bytes": 8}


async def test_a_new_file_in_an_existing_folder_and_a_relative_path_are_written(place, monkeypatch):
    monkeypatch.chdir(place["work"])
    record = await run_step(write_step("sub/fresh.txt", "fresh"), WROTE)
    assert record.status == "succeeded", error_of(record)
    assert (place["sub"] / "fresh.txt").read_text() == "fresh"
    assert record.outputs["done"]["path"] == str(place["sub"] / "fresh.txt")


async def test_missing_folders_are_made_as_approved(place):
    target = place["work"] / "a" / "b" / "made.txt"
    record = await run_step(write_step(target, "made", create_folders=True), WROTE)
    assert record.status == "succeeded", error_of(record)
    assert target.read_text() == "made"


async def test_a_folder_that_was_missing_and_is_a_link_when_approved_is_not_followed(place):
    target = place["work"] / "a" / "made.txt"
    record = await run_step(write_step(target, create_folders=True), WROTE,
                            meanwhile=lambda: (place["work"] / "a").symlink_to(place["secret"]))
    assert place["victim"].read_text() == SECRET and not (place["secret"] / "made.txt").exists()
    assert error_of(record) == (f"nothing was written: {place['work'] / 'a'} did not exist when the write was "
                                "approved, and now it does")


async def test_a_write_a_rule_allows_uses_what_its_request_recorded(place):
    engine = compose_engine(Registry(builtin_tools()), MemoryStores())
    try:
        await engine.interactions.modes.set("file_write", "always-allow")
        await engine.create(seq(group("g", out=WROTE, tools=tools(write_step(place["file"], "allowed")))))
        record = await engine.runner.wait((await engine.start("s", {})).run_id, T)
    finally:
        await engine.close()
    assert record.status == "succeeded", error_of(record)
    assert place["file"].read_text() == "allowed"


async def test_an_edited_path_is_written_where_the_edit_says(place):
    other = place["sub"] / "edited.txt"
    record = await run_step(write_step(place["file"], "by the edit"), WROTE,
                            answer={"edited_input": {"path": str(other), "content": "by the edit"}})
    assert record.status == "succeeded", error_of(record)
    assert other.read_text() == "by the edit" and place["file"].read_text() == "old"


# -- file_read -------------------------------------------------------------------------------------

async def test_a_file_swapped_for_a_link_while_the_read_waits_is_refused(place):
    record = await run_step(read_step(place["file"]), READ, meanwhile=swap_for_link(place["file"], place["victim"]))
    assert record.status == "failed"
    assert SECRET not in str(record.model_dump())
    assert error_of(record) == f"nothing was read: {place['file']} became a link after the read was approved"


async def test_a_folder_swapped_for_a_link_while_the_read_waits_is_refused(place):
    record = await run_step(read_step(place["file"]), READ, meanwhile=swap_for_link(place["sub"], place["secret"]))
    assert SECRET not in str(record.model_dump())
    assert error_of(record) == f"nothing was read: {place['sub']} became a link after the read was approved"


async def test_an_unchanged_file_and_a_relative_path_are_read(place, monkeypatch):
    monkeypatch.chdir(place["work"])
    record = await run_step(read_step("sub/out.txt"), READ)
    assert record.status == "succeeded", error_of(record)
    assert record.outputs["text"] == "old"


# -- where the system cannot open relative to a folder (Windows) -----------------------------------

@pytest.fixture
def by_path(monkeypatch):
    from gui.tools import _approved_path

    monkeypatch.setattr(_approved_path, "DIR_FD", False)


async def test_without_folder_descriptors_the_swaps_are_still_refused_and_the_log_says_how(place, by_path):
    record = await run_step(write_step(place["file"]), WROTE, meanwhile=swap_for_link(place["sub"], place["secret"]))
    assert place["victim"].read_text() == SECRET
    assert error_of(record) == f"nothing was written: {place['sub']} became a link after the write was approved"
    assert [line.text for line in record.groups[0].tools[0].log] == [
        "this system cannot open a file without following links: the path was checked just before, by name"]
    record = await run_step(read_step(place["file"]), READ, meanwhile=swap_for_link(place["file"], place["victim"]))
    assert SECRET not in str(record.model_dump())
    assert "became a link after the read was approved" in error_of(record)


async def test_without_folder_descriptors_an_unchanged_path_is_written_and_read(place, by_path):
    target = place["work"] / "new" / "made.txt"
    record = await run_step(write_step(target, "made", create_folders=True), WROTE)
    assert record.status == "succeeded", error_of(record)
    assert target.read_text() == "made"
    record = await run_step(read_step(target), READ)
    assert record.outputs["text"] == "made"
