"""The run panel's parts: groups, tool cards, the timeline, outputs and status words."""
