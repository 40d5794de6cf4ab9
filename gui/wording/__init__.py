"""What SeqDesk says to a person, as pure functions (no NiceGUI): the glossary of the format's terms
(`glossary`), why a run, group or tool ended so (`outcomes`), what a request asks and how it ended
(`requests`), and what a person changed before approving (`changes`).

Below the pages (`gui.ui`) and the notifications (`gui.notify`) alike, so a notice and a screen say
the same thing in the same words, and the notifications never reach into the pages.
"""
