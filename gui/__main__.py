"""`python -m gui` is the same as the `seqdesk` command."""

from gui.cli import main

if __name__ in {"__main__", "__mp_main__"}:
    raise SystemExit(main())
