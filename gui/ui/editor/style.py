"""The editor's look: its colours (checked against WCAG AA by a test), dark mode, and phone widths.

Why scoped to `.sd-page`: the header belongs to the frame; the editor and the sequences list set
their own primary, error and link colours so that text on them, and white on them, reads at 4.5:1
or more in light and in dark (Quasar's default blue #5898d4 gives 3.1 with white). Dialogs live
outside the page's column, so their cards carry the class too. The overrides sit in the `theme`
cascade layer, the only place an `!important` colour can outrank Quasar's (NiceGUI layers its
CSS). `.sd-editor` holds the layout rules for 360-414 px: rows stack, nothing scrolls sideways,
touch targets are 44 px.
"""

from __future__ import annotations

# (foreground, background) pairs a person reads on the editor's screens, light and dark.
LIGHT_BG, LIGHT_CARD = "#ffffff", "#ffffff"
DARK_BG, DARK_CARD = "#121212", "#1d1d1d"
PRIMARY = {"light": "#1565c0", "dark": "#64b5f6"}
ON_PRIMARY = {"light": "#ffffff", "dark": "#0a1929"}
NEGATIVE = {"light": "#b00020", "dark": "#ff8a80"}
ON_NEGATIVE = {"light": "#ffffff", "dark": "#2b0000"}
WARNING_TEXT = {"light": "#92400e", "dark": "#fcd34d"}  # amber words (Tailwind amber-800 / amber-300)
PILL = {"light": ("#7c2d12", "#ffecb3"), "dark": ("#ffe082", "#3e2a00")}  # the problem pill: text, fill

CONTRAST_PAIRS: list[tuple[str, str, str]] = [
    ("primary text on the page", PRIMARY["light"], LIGHT_BG),
    ("primary text on the page (dark)", PRIMARY["dark"], DARK_BG),
    ("primary text on a card (dark)", PRIMARY["dark"], DARK_CARD),
    ("text on a primary button", ON_PRIMARY["light"], PRIMARY["light"]),
    ("text on a primary button (dark)", ON_PRIMARY["dark"], PRIMARY["dark"]),
    ("an error under a field", NEGATIVE["light"], LIGHT_CARD),
    ("an error under a field (dark)", NEGATIVE["dark"], DARK_CARD),
    ("text on a red button", ON_NEGATIVE["light"], NEGATIVE["light"]),
    ("text on a red button (dark)", ON_NEGATIVE["dark"], NEGATIVE["dark"]),
    ("amber words", WARNING_TEXT["light"], LIGHT_CARD),
    ("amber words (dark)", WARNING_TEXT["dark"], DARK_CARD),
    ("the problem pill", *PILL["light"]),
    ("the problem pill (dark)", *PILL["dark"]),
]

CSS = f"""
.sd-page {{ --q-primary: {PRIMARY["light"]}; --q-negative: {NEGATIVE["light"]}; }}
body.body--dark .sd-page {{ --q-primary: {PRIMARY["dark"]}; --q-negative: {NEGATIVE["dark"]}; }}
/* For !important, the first layer wins: `theme` outranks Quasar's `.text-white !important`. */
@layer theme {{
@media (max-width: 599px) {{ .sd-editor .q-btn-toggle .q-btn {{ min-height: 44px !important; }} }}
.sd-page .bg-primary {{ color: {ON_PRIMARY["light"]} !important; }}
body.body--dark .sd-page .bg-primary {{ color: {ON_PRIMARY["dark"]} !important; }}
body.body--dark .sd-page .bg-negative {{ color: {ON_NEGATIVE["dark"]} !important; }}
.sd-page .nicegui-link, .sd-page a.nicegui-link {{ color: var(--q-primary) !important; }}
.sd-page .sd-pill {{ color: {PILL["light"][0]} !important; background: {PILL["light"][1]} !important; }}
body.body--dark .sd-page .sd-pill {{ color: {PILL["dark"][0]} !important; background: {PILL["dark"][1]} !important; }}
.sd-page .text-amber-10, .sd-page .text-amber-9 {{ color: {WARNING_TEXT["light"]} !important; }}
body.body--dark .sd-page .text-amber-10, body.body--dark .sd-page .text-amber-9 {{
  color: {WARNING_TEXT["dark"]} !important; }}
}}
.sd-box {{ background: #ffffff; border: 1px solid #9e9e9e; }}
body.body--dark .sd-box {{ background: #263238; border-color: #78909c; }}
.seqdesk-mark-error {{ text-decoration: underline wavy #c10015; background: rgba(193, 0, 21, 0.10); }}
.seqdesk-mark-warning {{ text-decoration: underline wavy #b26a00; background: rgba(255, 193, 7, 0.18); }}
.seqdesk-line-error {{ background: rgba(193, 0, 21, 0.05); }}
.seqdesk-line-warning {{ background: rgba(255, 193, 7, 0.08); }}
body.body--dark .sd-box {{ background: #ffffff; border: 1px solid #9e9e9e; }}
body.body--dark .sd-box {{ background: #263238; border-color: #78909c; }}
.seqdesk-mark-error {{ text-decoration-color: #ff8a80; background: rgba(255, 138, 128, 0.16); }}
body.body--dark .seqdesk-mark-warning {{ text-decoration-color: #ffd54f; background: rgba(255, 213, 79, 0.16); }}
body.body--dark .seqdesk-line-error {{ background: rgba(255, 138, 128, 0.08); }}
body.body--dark .seqdesk-line-warning {{ background: rgba(255, 213, 79, 0.08); }}
@media (max-width: 599px) {{
  .sd-editor .sd-stack {{ flex-direction: column !important; align-items: stretch !important;
    flex-wrap: nowrap !important; }}
  .sd-editor .sd-stack > * {{ width: 100% !important; max-width: 100% !important; }}
  .sd-editor .sd-wrap {{ flex-wrap: wrap !important; }}
  .sd-editor .sd-full {{ flex-basis: 100% !important; width: 100% !important; }}
  .sd-editor .q-btn, .sd-editor .q-tab {{ min-height: 44px; min-width: 44px; }}
  .sd-editor .q-chip:has(.q-chip__icon--remove) {{ min-height: 44px; }}
  .sd-editor a.nicegui-link {{ display: inline-flex; align-items: center; min-height: 44px; }}
  .sd-editor .q-chip__icon--remove {{ font-size: 24px; padding: 10px; margin-right: -10px; }}
  .sd-editor .q-field, .sd-editor .q-card {{ max-width: 100%; }}
  .sd-editor .sd-turn {{ transform: rotate(90deg); }}
}}
"""


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(foreground: str, background: str) -> float:
    """The WCAG 2 contrast ratio of two opaque colours (1 to 21)."""
    a, b = luminance(foreground), luminance(background)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)
