"""file_write on real files: whole-file replacement, appending, folders, and what the approval shows."""

from __future__ import annotations

import os
import stat

import pytest

from gui.core.errors import ToolArgumentError, ToolError
from gui.tools.file_write import FileWrite


async def write(ctx, **args):
    return await FileWrite().call(args, ctx)


async def test_writes_a_new_file_and_reports_path_and_bytes(ctx, tmp_path):
    path = tmp_path / "out.txt"
    result = await write(ctx, path=str(path), content="grüße\n")
    assert result == {"path": str(path.resolve()), "bytes": len("grüße\n".encode())}
    assert path.read_text(encoding="utf-8") == "grüße\n"


async def test_text_is_written_exactly_as_given(ctx, tmp_path):
    path = tmp_path / "crlf.txt"
    await write(ctx, path=str(path), content="a\r\nb\n")
    assert path.read_bytes() == b"a\r\nb\n"


async def test_replacing_keeps_the_permissions_and_leaves_no_temporary_file(ctx, tmp_path):
    path = tmp_path / "script.sh"
    path.write_text("old")
    os.chmod(path, 0o754)
    await write(ctx, path=str(path), content="new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o754
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.sh"]


async def test_append_adds_to_the_end(ctx, tmp_path):
    path = tmp_path / "log.txt"
    path.write_text("one\n")
    result = await write(ctx, path=str(path), content="two\n", append=True)
    assert path.read_text() == "one\ntwo\n"
    assert result["bytes"] == 4


async def test_append_creates_a_missing_file(ctx, tmp_path):
    path = tmp_path / "log.txt"
    await write(ctx, path=str(path), content="first", append=True)
    assert path.read_text() == "first"


async def test_missing_folder_is_an_error_unless_asked_to_create_it(ctx, tmp_path):
    path = tmp_path / "a" / "b" / "out.txt"
    with pytest.raises(ToolError, match="does not exist.*Create missing folders"):
        await write(ctx, path=str(path), content="x")
    assert not (tmp_path / "a").exists()
    await write(ctx, path=str(path), content="x", create_folders=True)
    assert path.read_text() == "x"


async def test_a_folder_cannot_be_written(ctx, tmp_path):
    with pytest.raises(ToolError, match=f"{tmp_path} is a folder"):
        await write(ctx, path=str(tmp_path), content="x")


async def test_a_link_is_followed_and_stays_a_link(ctx, tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    result = await write(ctx, path=str(link), content="new")
    assert link.is_symlink()
    assert target.read_text() == "new"
    assert result["path"] == str(target.resolve())


def test_approval_shows_what_is_written_where(tmp_path):
    path = tmp_path / "out.txt"
    approval = FileWrite().shell_approval({"path": str(path), "content": "hello"})
    assert approval.title == "Write a file"
    assert approval.command == f"write 5 characters to {path.resolve()}"
    assert approval.cwd == str(tmp_path.resolve())
    assert approval.operation == "write"
    appending = FileWrite().shell_approval({"path": str(path), "content": "hi", "append": True})
    assert appending.command == f"append 2 characters to {path.resolve()}"


def test_tool_needs_write_approval_and_runs_alone():
    tool = FileWrite()
    assert (tool.name, tool.approval, tool.concurrency_safe) == ("file_write", "write", False)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"content": "x"}, "path"),
        ({"path": "", "content": "x"}, "path"),
        ({"path": "a.txt"}, "content"),
        ({"path": "a.txt", "content": 5}, "content"),
        ({"path": "a.txt", "content": "x", "append": "sometimes"}, "append"),
        ({"path": "a.txt", "content": "x", "overwrite": True}, "overwrite"),
    ],
)
async def test_bad_arguments_name_the_field(ctx, tmp_path, args, field):
    with pytest.raises(ToolArgumentError) as err:
        await write(ctx, **args)
    assert field in [path for path, _ in err.value.problems]
