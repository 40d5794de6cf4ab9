"""`python -m gui` is the same as the `seqdesk` command."""

from gui.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
