"""The sequence editor: a draft of what the person builds, and the parts that draw and check it.

`SequenceEditor` (in `view`) is what the editor page opens; everything else is its parts: the
draft and its conversions (`draft`, `convert`, `baseline`: what a draft is compared with), what
the editor asks the door and how its answer is shown (`saving`), where problems go (`issues`,
`fields`), the components (group cards, slot rows, tool rows with argument forms and the data
picker, inputs in text as marks and chips (`chips`), the condition builder, the text view, the
palette, the help panel, "Test this group" (`group_test`)), and the look (`style`: colours
checked for contrast, dark mode, phone widths).
"""

from gui.ui.editor.convert import from_document, from_sequence
from gui.ui.editor.draft import SequenceDraft, to_document
from gui.ui.editor.view import SequenceEditor

__all__ = ["SequenceDraft", "SequenceEditor", "from_document", "from_sequence", "to_document"]
