"""The help text (seed `seqHelpText`): the pitfalls first, then the format, conditions, an example.

The example is one line that a person or a model can copy as it is; a test parses and validates it,
because an example that does not parse teaches the mistake it should prevent.
"""

from __future__ import annotations

from gui.core.marks import N_, Translate, as_written
from gui.core.sequences.limits import MAX_DOCUMENT_BYTES, MAX_GROUPS, MAX_TOOLS, megabytes

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

# The help, one paragraph a template (`N_`): `help_text(_)` words the prose in the reader's language,
# while the keywords, field names and code in it stay as written (the translation keeps them). A
# template is filled with `.format()`, so each brace of the format's JSON is written twice.
PARTS: tuple[str | None, ...] = (
    N_(
        "TOOL SEQUENCES"
    ),
    N_(
        'The mistake made most often: a group\'s "in" must be an OBJECT. With no inputs write {{}}, never a string.\n'
        '  "in": "" or "in": "{{}}" (text) is always rejected. "No inputs" is an empty object: "in": {{}}'
    ),
    N_(
        "Operations:\n"
        "  seq_list        list every sequence with its signature (inputs and outputs)\n"
        "  seq_create      create or update a sequence (give groups OR file, exactly one)\n"
        "  seq_run         run a sequence (its groups in order)\n"
        "  seq_call        call one group or one whole sequence by name, with args\n"
        "  seq_when_call   call only when a condition over the args holds\n"
        "  seq_delete      delete a sequence\n"
        "  seq_tools       every tool you can use in a sequence: its inputs, result, whether it asks first\n"
        "  seq_help        this text"
    ),
    N_(
        "A sequence is a list of groups. Groups run ONE AFTER ANOTHER; the tools inside a group run AT THE SAME\n"
        "TIME. Each group has its own signature (in: inputs, out: outputs) and can be called by name.\n"
        "A sequence is stored already checked and parsed: every check happens when you save, not when it runs."
    ),
    N_(
        "THE FORMAT (the places where mistakes happen)"
    ),
    N_(
        '1. The top level is JSON: {{"name": …, "description": …, "groups": […]}} with at least one group.'
    ),
    N_(
        "2. The fields of a group:\n"
        "     name       required; unique across ALL saved sequences (it is a callable name)\n"
        '     in         inputs, an OBJECT such as {{"host": "string"}}; none: {{}}\n'
        "                types: string, number, boolean, array, object\n"
        '                ! must be an object; "" or "{{}}" (text) is rejected\n'
        '     out        output slots, an OBJECT such as {{"summary": "string"}}; none: {{}}\n'
        '     when       condition, default "true"; may read only $args.* declared in this group\'s "in"\n'
        "     parallel   default true; false runs the tools one by one, in order\n"
        "     missing    what an unknown tool does at run time: fail (default) / skip / degrade\n"
        '     timeout    time limit of the whole group, such as "500ms", "30s", "2m", "1h"\n'
        "     on_error   abort (default) / continue / retry (3 attempts)\n"
        "     tools      a STRING (not an array!), see below"
    ),
    N_(
        "   Who answers its requests (a group, or one tool object, which then wins key by key):\n"
        '     approvers      who may answer, such as ["role:oncall", "person:li.wei"]; default: anyone\n'
        "     required       how many distinct people must approve, default 1\n"
        "     self_approve   may the person who started the run approve its own step? default false\n"
        '     remind_after   remind the approvers after a while, such as "30m"\n'
        '     escalate_after with escalate_to (["role:lead"]): after a while, ask them as well\n'
        '     expire_after   end the request: an approval is then DENIED, a question takes its default'
    ),
    N_(
        '3. ! "tools" is a STRING holding JSON objects, each followed by \';\':\n'
        '     each object looks like {{"tool":"cmd_run","args":{{…}},"as":"slot"}}\n'
        "     - EVERY object is followed by ';', THE LAST ONE TOO. Forgetting it: missing-trailing-semicolon.\n"
        "     - Two objects need a ';' between them too (missing-semicolon); nothing is ever dropped silently.\n"
        '     - Keys are quoted (strict JSON): {{"tool": …}}, not {{tool: …}}.\n'
        '     - Inside args, "$args.<name>" uses an input. A value that is exactly "$args.n" keeps its type;\n'
        "       inside longer text it is written in as text. Nested objects and arrays work too."
    ),
    N_(
        'INPUTS IN A COMMAND (cmd_run\'s "command"): the shell reads an input as text, never as a command:\n'
        "  echo $args.host            between words: inserted shell-quoted, as ONE word; with host\n"
        "                             \"x; rm -rf ~\" it runs  echo 'x; rm -rf ~'  (never a second command)\n"
        '  echo "host=$args.host"     inside "…": inserted as text of that string ($ ` \\ " in it do nothing)\n'
        "  '…'  `…`  ${{…}}  $((…))  ((…))  arr[…]  a here-document (<<)  after a \\  after a #\n"
        "                             REFUSED when you save (input-in-shell-code), saying what to write instead:\n"
        "                             there a value could end the quotes or be read again as code\n"
        "                             (a number input may go inside '…', `…`, ${{…}} and $((…)))\n"
        "  sh -c \"$args.x\", eval, python -c, ssh host …, xargs, find -exec\n"
        "                             saved with a WARNING (input-runs-as-command): the program runs the\n"
        '                             value as code, and the request says "this input will be run as a command"\n'
        '  A command that is exactly "$args.cmd" is the input itself: its approval shows it in full.'
    ),
    N_(
        '4. ! "as" must name a slot declared in the group\'s "out", or saving fails (undeclared-slot).\n'
        '   A slot that is not "array" may be written by only one tool of a group (they run at the same\n'
        '   time: a race). To collect several results, declare the slot "array": it gets them in tool order.'
    ),
    N_(
        'HOSTS (a team whose runs run on Temporal): a tool object may say "on":"node-a" to run on that host:\n'
        '  {{"tool":"cmd_run","args":{{"command":"hostname"}},"on":"node-a"}} ; runs hostname on node-a, whose\n'
        "  worker (seqdesk worker --name node-a) took it; its approval still comes to the app's inbox, naming\n"
        "  the host. The name must be a host the team knows (unknown-host); a host runs the built-in tools\n"
        "  cmd_run, file_read, http_get, echo and sleep. A step whose host's worker died after it began may\n"
        "  have run there: it is called again only when its group says on_error: retry."
    ),
    N_(
        "5. groups and file: exactly one. Short sequences pass groups directly; long ones are written to a\n"
        "   file and passed by its path (long arguments can be cut off)."
    ),
    N_(
        "6. Size: a sequence is at most {max_bytes} of JSON, {max_groups} groups and {max_tools} tools (all its\n"
        "   groups together). A larger one is refused (too-large, too-many-groups, too-many-tools): split it;\n"
        "   a group can call another sequence with seq_call."
    ),
    N_(
        "CONDITIONS (when)"
    ),
    N_(
        'A condition reads only this group\'s $args.* (inputs declared in "in"), never another group\'s outputs.\n'
        "A condition that cannot be evaluated is an ERROR, never silently false: a skipped step that you believe\n"
        "ran is the worst outcome.\n"
        '  "$args.flag == true"        a yes/no input\n'
        '  "$args.n > 3"               compare numbers (== != > >= < <=)\n'
        '  "$args.s contains \\"err\\""   text contains text\n'
        '  "$args.host != \\"\\""         not empty\n'
        '  "true" / "false"            always / never\n'
        'Combine with and, or, not and parentheses: "$args.n > 3 and not ($args.s contains \\"x\\")".'
    ),
    N_(
        "A COMPLETE EXAMPLE YOU CAN COPY"
    ),
    N_(
        "This single line is a complete, valid sequence:"
    ),
    None,  # the example line, as it is: a person or a model copies it
    N_(
        "Read apart (copy the line above, not this):\n"
        "  name / description     the sequence's name and what it does\n"
        "  groups[0] fetch-one-node   its two tools run AT THE SAME TIME\n"
        '              in  {{"host":"string"}}                  an object, not text\n'
        '              out {{"summary":…,"load":…}}              every "as" slot is declared here\n'
        "              tools: a ';' between the two {{…}} and after the last one\n"
        '  groups[1] dig-deeper     runs only when its condition holds; reads only $args.* from its own "in"'
    ),
    N_(
        "Calls:\n"
        '  seq_create(name="check-three-nodes", groups=[the array above])\n'
        '  seq_run(name="check-three-nodes", args={{"host": "node-a"}})\n'
        ""
    ),
)


# What the help's paragraphs are filled with: the size limits, as `gui.core.sequences.limits` sets them.
LIMIT_WORDS = {"max_bytes": megabytes(MAX_DOCUMENT_BYTES), "max_groups": MAX_GROUPS, "max_tools": MAX_TOOLS}


def _part(part: str | None, tr: Translate) -> str:
    if part is None:
        return EXAMPLE
    try:
        return tr(part).format(**LIMIT_WORDS)
    except (KeyError, IndexError, ValueError):  # a translation whose braces went wrong: the English
        return part.format(**LIMIT_WORDS)


def help_text(tr: Translate = as_written) -> str:
    """The help in English (MCP `seq_help`, the API), or in the words of `tr` (`seqdesk help --lang zh-CN`)."""
    return "\n\n".join(_part(part, tr) for part in PARTS)
