#!/usr/bin/env bash
# A Claude Code PreToolUse hook: before Claude Code runs a shell command, the person approves it in
# SeqDesk (its inbox, on the computer or a paired phone). Approved: it runs. Denied: Claude Code is
# told why. Nobody answered, or SeqDesk could not be asked: Claude Code asks in its own prompt, as it
# would without this hook (never an approval nobody gave).
#
# In .claude/settings.json (the hook's time limit must outlast SEQDESK_ASK_TIMEOUT, default 540 s):
#   {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
#       {"type": "command", "command": "/path/to/claude_code_hook.sh", "timeout": 600}]}]}}
set -u
payload=$(cat)
command=$(printf '%s' "$payload" | jq -r '.tool_input.command // empty' 2>/dev/null) || command=""
if [ -z "$command" ]; then
    exit 0  # not a shell command: Claude Code's own rules decide
fi
cwd=$(printf '%s' "$payload" | jq -r '.cwd // empty' 2>/dev/null)
why=$(printf '%s' "$payload" | jq -r '.tool_input.description // empty' 2>/dev/null)
set -- --approve="$command" --title="Claude Code wants to run a command" --from=claude-code \
    --timeout="${SEQDESK_ASK_TIMEOUT:-540}" --json
[ -n "$cwd" ] && set -- "$@" --cwd="$cwd"
[ -n "$why" ] && set -- "$@" --text="$why"
answer=$(seqdesk ask "$@")
case $? in
    0) decision=allow; reason="approved in SeqDesk" ;;
    1) decision=deny
       note=$(printf '%s' "$answer" | jq -r '.reason // empty' 2>/dev/null)
       reason="denied in SeqDesk${note:+: $note}" ;;
    2) decision=ask; reason="nobody answered in SeqDesk in time" ;;
    *) decision=ask; reason="SeqDesk could not be asked" ;;
esac
jq -n --arg decision "$decision" --arg reason "$reason" \
    '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: $decision,
                           permissionDecisionReason: $reason}}'
