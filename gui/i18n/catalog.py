"""The catalogue's upkeep: extract every `_()`, `ngettext()` and `N_()` from gui/ and merge the
result into each language's .po (new words come in empty, gone ones go out). Used by
`python -m gui.i18n.update` and by the test that every word has a translation."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from gui.i18n import DOMAIN, LANGUAGES, LOCALE_DIR

SOURCE = Path(__file__).resolve().parents[1]  # gui/
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


def extract() -> Catalog:
    """Every word marked in gui/ (the template, with where each word is used)."""
    template = Catalog(project="SeqDesk", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
            str(SOURCE), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("i18n:",),
            strip_comment_tags=True):
        template.add(message, None, [(f"gui/{filename}", lineno)], auto_comments=comments, context=context)
    return template


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(lang: str) -> Catalog:
    with po_path(lang).open("rb") as file:
        return read_po(file, locale=lang)


def update() -> dict[str, int]:
    """Merge the extracted words into each catalogue; returns how many are still untranslated."""
    template = extract()
    left: dict[str, int] = {}
    for lang in LANGUAGES:
        if lang == "en":
            continue
        path = po_path(lang)
        if path.exists():
            catalog = read(lang)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=lang, project="SeqDesk", charset="utf-8")
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        catalog.fuzzy = False
        with path.open("wb") as file:
            write_po(file, catalog, width=120, omit_header=False, sort_output=False, include_previous=False)
        left[lang] = sum(1 for m in catalog if m.id and not (all(m.string) if isinstance(m.string, tuple)
                                                             else m.string))
    return left


@lru_cache(maxsize=8)
def templates_marked_in(*prefixes: str) -> tuple[str, ...]:
    """Every sentence and template marked in the files under `prefixes` (`"gui/tools/"`), as the
    catalogue lists them: what a screen reads English text kept in a record back into."""
    lang = next(k for k in LANGUAGES if k != "en")
    found = []
    for message in read(lang):
        if isinstance(message.id, str) and message.id and any(
                where.startswith(prefixes) for where, _line in message.locations):
            found.append(message.id)
    return tuple(found)
