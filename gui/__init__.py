"""SeqDesk: build tool sequences, run them, and answer their requests for a human."""

__version__ = "0.1.0"
