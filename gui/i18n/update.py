"""`python -m gui.i18n.update`: bring every catalogue up to date with the words in gui/."""

from __future__ import annotations

from gui.i18n.catalog import po_path, update

if __name__ == "__main__":
    for lang, left in update().items():
        print(f"{po_path(lang)}: {left} without a translation")
