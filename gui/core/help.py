"""The help text (seed `seqHelpText`): the pitfalls first, then the format, conditions, an example.

The example is one line that a person or a model can copy as it is; a test parses and validates it,
because an example that does not parse teaches the mistake it should prevent.
"""

from __future__ import annotations

EXAMPLE = (
    '{"name": "check-three-nodes", "description": "Fetch the status of a node, dig deeper if needed", '
    '"groups": [{"name": "fetch-one-node", "description": "Uptime and date of one node", '
    '"in": {"host": "string"}, "out": {"summary": "string", "load": "string"}, '
    '"tools": "{\\"tool\\":\\"cmd_run\\",\\"args\\":{\\"command\\":\\"uptime\\"},\\"as\\":\\"summary\\"} ; '
    '{\\"tool\\":\\"cmd_run\\",\\"args\\":{\\"command\\":\\"date\\"},\\"as\\":\\"load\\"} ;"}, '
    '{"name": "dig-deeper", "in": {"host": "string"}, "out": {"detail": "string"}, '
    '"when": "$args.host != \\"\\"", '
    '"tools": "{\\"tool\\":\\"echo\\",\\"args\\":{\\"value\\":\\"checked $args.host\\"},\\"as\\":\\"detail\\"} ;"}]}'
)

# The seed's own example (Chinese names): it must parse, save and run too.
SEED_EXAMPLE = (
    '{"name": "巡检三节点", "description": "并行拉取三台节点状态，异常时展开", "groups": [{"name": "拉取单台", '
    '"description": "拉取一台节点的 uptime 与负载", "in": {"host": "string"}, '
    '"out": {"summary": "string", "load": "string"}, '
    '"tools": "{\\"tool\\":\\"cmd_run\\",\\"args\\":{\\"command\\":\\"uptime\\"},\\"as\\":\\"summary\\"} ; '
    '{\\"tool\\":\\"cmd_run\\",\\"args\\":{\\"command\\":\\"date\\"},\\"as\\":\\"load\\"} ;"}, '
    '{"name": "异常展开", "in": {"host": "string"}, "out": {"detail": "string"}, '
    '"when": "$args.host != \\"\\"", '
    '"tools": "{\\"tool\\":\\"cmd_run\\",\\"args\\":{\\"command\\":\\"journalctl -x\\"},\\"as\\":\\"detail\\"} ;"}]}'
)

HEADER = """TOOL SEQUENCES

The mistake made most often: a group's "in" must be an OBJECT. With no inputs write {}, never a string.
  "in": "" or "in": "{}" (text) is always rejected. "No inputs" is an empty object: "in": {}

Operations:
  seq_list        list every sequence with its signature (inputs and outputs)
  seq_create      create or update a sequence (give groups OR file, exactly one)
  seq_run         run a sequence (its groups in order)
  seq_call        call one group or one whole sequence by name, with args
  seq_when_call   call only when a condition over the args holds
  seq_delete      delete a sequence
  seq_tools       every tool you can use in a sequence: its inputs, result, whether it asks first
  seq_help        this text

A sequence is a list of groups. Groups run ONE AFTER ANOTHER; the tools inside a group run AT THE SAME
TIME. Each group has its own signature (in: inputs, out: outputs) and can be called by name.
A sequence is stored already checked and parsed: every check happens when you save, not when it runs.
"""

FORMAT = """
THE FORMAT (the places where mistakes happen)

1. The top level is JSON: {"name": …, "description": …, "groups": […]} with at least one group.

2. The fields of a group:
     name       required; unique across ALL saved sequences (it is a callable name)
     in         inputs, an OBJECT such as {"host": "string"}; none: {}
                types: string, number, boolean, array, object
                ! must be an object; "" or "{}" (text) is rejected
     out        output slots, an OBJECT such as {"summary": "string"}; none: {}
     when       condition, default "true"; may read only $args.* declared in this group's "in"
     parallel   default true; false runs the tools one by one, in order
     missing    what an unknown tool does at run time: fail (default) / skip / degrade
     timeout    time limit of the whole group, such as "500ms", "30s", "2m", "1h"
     on_error   abort (default) / continue / retry (3 attempts)
     tools      a STRING (not an array!), see below

3. ! "tools" is a STRING holding JSON objects, each followed by ';':
     each object looks like {"tool":"cmd_run","args":{…},"as":"slot"}
     - EVERY object is followed by ';', THE LAST ONE TOO. Forgetting it: missing-trailing-semicolon.
     - Two objects need a ';' between them too (missing-semicolon); nothing is ever dropped silently.
     - Keys are quoted (strict JSON): {"tool": …}, not {tool: …}.
     - Inside args, "$args.<name>" uses an input. A value that is exactly "$args.n" keeps its type;
       inside longer text it is written in as text. Nested objects and arrays work too.
     - In cmd_run's "command", an input inside longer text is inserted shell-quoted, as ONE word:
       "echo $args.host" with host "x; rm -rf ~" runs  echo 'x; rm -rf ~'  (never a second command).
       A command that is exactly "$args.cmd" is the input itself: its approval shows it in full.

4. ! "as" must name a slot declared in the group's "out", or saving fails (undeclared-slot).
   A slot that is not "array" may be written by only one tool of a group (they run at the same
   time: a race). To collect several results, declare the slot "array": it gets them in tool order.

5. groups and file: exactly one. Short sequences pass groups directly; long ones are written to a
   file and passed by its path (long arguments can be cut off).
"""

CONDITION = """
CONDITIONS (when)

A condition reads only this group's $args.* (inputs declared in "in"), never another group's outputs.
A condition that cannot be evaluated is an ERROR, never silently false: a skipped step that you believe
ran is the worst outcome.
  "$args.flag == true"        a yes/no input
  "$args.n > 3"               compare numbers (== != > >= < <=)
  "$args.s contains \\"err\\""   text contains text
  "$args.host != \\"\\""         not empty
  "true" / "false"            always / never
Combine with and, or, not and parentheses: "$args.n > 3 and not ($args.s contains \\"x\\")".
"""

EXAMPLE_SECTION = f"""
A COMPLETE EXAMPLE YOU CAN COPY

This single line is a complete, valid sequence:

{EXAMPLE}

Read apart (copy the line above, not this):
  name / description     the sequence's name and what it does
  groups[0] fetch-one-node   its two tools run AT THE SAME TIME
              in  {{"host":"string"}}                  an object, not text
              out {{"summary":…,"load":…}}              every "as" slot is declared here
              tools: a ';' between the two {{…}} and after the last one
  groups[1] dig-deeper     runs only when its condition holds; reads only $args.* from its own "in"

Calls:
  seq_create(name="check-three-nodes", groups=[the array above])
  seq_run(name="check-three-nodes", args={{"host": "node-a"}})
"""


def help_text() -> str:
    return HEADER + FORMAT + CONDITION + EXAMPLE_SECTION
