"""`python -m gui.mcp [--http PORT]`: the same as `seqdesk mcp`, usable before the CLI wires it in."""

import argparse
import sys

from gui.cli.mcp import add_mcp_command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="seqdesk")
    sub = parser.add_subparsers(dest="command")
    add_mcp_command(sub)
    args = parser.parse_args(["mcp", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ in {"__main__", "__mp_main__"}:
    raise SystemExit(main())
