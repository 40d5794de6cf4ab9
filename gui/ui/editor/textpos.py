"""Where a problem sits in the document text: moved to `gui.core.sequences.textpos`, so the terminal's
`seqdesk check` gives the same line and column as the editor; kept here for the editor's imports."""

from gui.core.sequences import Span, line_col, locate, raw_index, scan

__all__ = ["Span", "line_col", "locate", "raw_index", "scan"]
