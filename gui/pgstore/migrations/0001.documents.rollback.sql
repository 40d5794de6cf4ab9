DROP TABLE key_check, secrets, mcp_servers, schedules, approval_rules, approval_modes, interactions, runs,
    sequences;
