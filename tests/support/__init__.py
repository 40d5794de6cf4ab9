"""What the tests share, one concept a module; imported as `support.<module>` (pyproject puts tests/
on the path). Test modules import from here, never from one another.

- waiting: the one `wait_until` (and `wait_until_sync`, off the event loop)
- engine: the in-process engine, its API and remote door (fixtures of the whole suite), its events
- builders, fakes, interactions: sequence documents, fake tools, interaction requests
- streaming: the API read as it streams (event streams in process)
- app, browser: the real app in a subprocess (the app starter), a headless Chromium, screenshots
- ui, editor, i18n_screens: the app under NiceGUI's simulated user, the editor's fields, untranslated words
- cli, listeners, mcp_auth, hotcold, loop_watch: the `seqdesk` command, notification listeners,
  the OAuth test servers, the hot/cold store's crashes, how long the event loop is held up
- forked, fork_door: Python children forked from a server that has imported what they import, held by
  the test (forked) or started by another program, the conformance suite (fork_door)
- postgres: a real PostgreSQL server per session and a fresh database per test (`postgres_url`)
"""
