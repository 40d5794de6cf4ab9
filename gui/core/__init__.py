"""The pure engine of SeqDesk, folded by concept, each package a layer that imports only those below it:

- `door`: the one door every surface goes through (`Operations`, and `Engine` that implements it here).
- `runs`: running a sequence: the runner, tool calls, run records, resume, schedules.
- `tools`: the tools a sequence calls and the registry that holds them.
- `asks`: requests for a person: interactions, approvals and their rules, elicitation, answers.
- `sequences`: the format: model, parser, validator, conditions, `$args` substitution, help.

Beside them, below every package: `errors` (the exception tree), `marks` (sentences for the
catalogue), `causes` (why something ended), `events` (the bus), `queries` (paged reads) and
`json_text` (records as the stores write them). Imports no UI, storage or MCP library (a test checks).
"""
