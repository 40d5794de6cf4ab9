"""Parse + validate a 100 groups × 10 tools sequence; target: median under 50 ms.

Run: python tests/bench/bench_parse.py
"""

from __future__ import annotations

import json
import statistics
import time

from gui.core.sequences.validator import check_text
from gui.core.tools import tool_catalog
from gui.tools import default_registry


def make_document(groups: int = 100, tools: int = 10) -> str:
    doc_groups = []
    for g in range(groups):
        calls = " ".join(
            json.dumps({"tool": "echo", "args": {"value": f"item {t} of $args.host"}, "as": "items"}) + " ;"
            for t in range(tools))
        doc_groups.append({"name": f"group-{g}", "in": {"host": "string", "n": "number"},
                           "out": {"items": "array"}, "when": '$args.host != "" and $args.n > 0',
                           "timeout": "30s", "tools": calls})
    return json.dumps({"name": "big", "description": "benchmark", "groups": doc_groups})


def main() -> None:
    text = make_document()
    catalog = tool_catalog(default_registry())
    result = check_text(text, catalog)
    assert result.ok, result.errors[:3]
    times = []
    for _ in range(30):
        start = time.perf_counter()
        check_text(text, catalog)
        times.append(time.perf_counter() - start)
    median = statistics.median(times) * 1000
    print(f"parse+validate 100 groups x 10 tools ({len(text):,} chars): median {median:.1f} ms "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f}) — target < 50 ms: "
          f"{'OK' if median < 50 else 'MISSED'}")


if __name__ == "__main__":
    main()
