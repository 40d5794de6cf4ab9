"""The editor's colours read at WCAG AA (4.5:1) in light and dark; the browser test audits the page."""

from __future__ import annotations

import pytest

from gui.ui.editor.style import CONTRAST_PAIRS, contrast


def test_the_contrast_ratio_matches_wcags_reference_values() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast("#5898d4", "#ffffff") < 4.5  # Quasar's default primary: why the editor sets its own


@pytest.mark.parametrize(("what", "foreground", "background"), CONTRAST_PAIRS, ids=[p[0] for p in CONTRAST_PAIRS])
def test_every_text_colour_of_the_editor_reads_at_aa(what: str, foreground: str, background: str) -> None:
    assert contrast(foreground, background) >= 4.5, what
