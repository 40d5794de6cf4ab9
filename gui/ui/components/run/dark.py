"""Dark-theme colours for the run panel and the inbox, chosen for contrast (WCAG AA, 4.5:1 for text).

Quasar's brand colours are tuned for white pages: `negative` (#c10015) and `primary` text on the
dark theme's #121212 read at about 3:1, red and blue hard to make out. In the dark theme those
texts take lighter shades here; the timeline's SVG text (axis labels) follows the theme too.
"""

from __future__ import annotations

from nicegui import ui

# In NiceGUI's `overrides` layer: Quasar's colour classes are `!important` in its last layer, and an
# important declaration in an earlier layer is the one that wins (unlayered ones would lose).
DARK_CSS = """
@layer overrides {
body.body--dark .text-negative { color: #ff8a80 !important; }
body.body--dark .text-primary { color: #90caf9 !important; }
body.body--dark .text-positive { color: #81c784 !important; }
body.body--dark .text-deep-purple-6 { color: #b39ddb !important; }
body.body--dark .nicegui-link:not([class*="text-"]) { color: #93c5fd; }
body.body--dark .seqdesk-timeline text { fill: #d1d5db !important; }
body.body--dark .q-field__native, body.body--dark .q-field__label { color: #e5e7eb; }
}
"""


def add_dark_css() -> None:
    """Add the dark-theme colours to the page being built."""
    ui.add_css(DARK_CSS)
