"""file_read on real files: text back, and every failure names the file."""

from __future__ import annotations

import os

import pytest

from gui.core.errors import ToolArgumentError, ToolError
from gui.tools import file_read
from gui.tools.file_read import FileRead


async def read(ctx, **args):
    return await FileRead().call(args, ctx)


async def test_reads_the_text(ctx, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("first line\nzweite Zeile – ü\n", encoding="utf-8")
    assert await read(ctx, path=str(path)) == "first line\nzweite Zeile – ü\n"


async def test_relative_path_starts_from_the_process_folder(ctx, tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("here")
    monkeypatch.chdir(tmp_path)
    assert await read(ctx, path="a.txt") == "here"


async def test_reads_another_encoding(ctx, tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("café".encode("latin-1"))
    assert await read(ctx, path=str(path), encoding="latin-1") == "café"


async def test_byte_order_mark_is_not_part_of_the_text(ctx, tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfhello")
    assert await read(ctx, path=str(path)) == "hello"


async def test_missing_file_names_the_path(ctx, tmp_path):
    path = tmp_path / "nope.txt"
    with pytest.raises(ToolError, match=f"file not found: {path}"):
        await read(ctx, path=str(path))


async def test_folder_is_not_a_file(ctx, tmp_path):
    with pytest.raises(ToolError, match=f"{tmp_path} is a folder"):
        await read(ctx, path=str(tmp_path))


@pytest.mark.parametrize("data", [b"\x89PNG\r\n\x1a\n\xff\xfe\x00", b"abc\x00def"])
async def test_binary_file_is_not_text(ctx, tmp_path, data):
    path = tmp_path / "image.png"
    path.write_bytes(data)
    with pytest.raises(ToolError, match=f"{path} is not a text file"):
        await read(ctx, path=str(path))


async def test_file_over_the_size_limit_is_refused(ctx, tmp_path, monkeypatch):
    monkeypatch.setattr(file_read, "MAX_READ_BYTES", 10)
    path = tmp_path / "big.txt"
    path.write_text("x" * 11)
    with pytest.raises(ToolError, match=f"{path} is larger than"):
        await read(ctx, path=str(path))
    path.write_text("x" * 10)
    assert await read(ctx, path=str(path)) == "x" * 10


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
async def test_a_pipe_is_refused_instead_of_blocking(ctx, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ToolError, match="not a regular file"):
        await read(ctx, path=str(fifo))


def test_tool_asks_before_it_reads_names_the_file_and_runs_in_parallel(tmp_path):
    tool = FileRead()
    assert (tool.name, tool.approval, tool.concurrency_safe) == ("file_read", "tool", True)
    summary = tool.approval_summary({"path": str(tmp_path / "notes.txt")})
    assert summary.text == f"Read the file {tmp_path / 'notes.txt'}"
    assert summary.highlight == str(tmp_path / "notes.txt")


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "path"),
        ({"path": ""}, "path"),
        ({"path": "a.txt", "encoding": "klingon"}, "encoding"),
        ({"path": "a.txt", "mode": "r"}, "mode"),
    ],
)
async def test_bad_arguments_name_the_field(ctx, args, field):
    with pytest.raises(ToolArgumentError) as err:
        await read(ctx, **args)
    assert field in [path for path, _ in err.value.problems]
