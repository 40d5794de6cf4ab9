"""One module per route; each has a `register()` that defines its `@ui.page`s."""
