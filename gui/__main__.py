"""`python -m gui` is the same as the `seqdesk` command."""

from gui.cli.exiting import run

if __name__ == "__main__":
    run()
