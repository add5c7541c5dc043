"""An agent in its own process, for end-to-end tests: it sends a plan to the studio's review
inbox with ``ReviewClient`` and waits for the decision, printing one JSON line per event.

    python tests/review_agent.py URL PLAN_JSON_FILE [--wait SECONDS] [--tools TOOLS_JSON_FILE]
    (token in PLAN_STUDIO_TOKEN)

Lines: {"event": "submitted", "id", "url", "sent_at"} then {"event": "decided", "review": {...}}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio import ReviewClient  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("plan", type=Path)
    parser.add_argument("--wait", type=float, default=120.0)
    parser.add_argument("--tools", type=Path)
    parser.add_argument("--agent", default="e2e-agent")
    args = parser.parse_args()
    client = ReviewClient(args.url)
    tools = json.loads(args.tools.read_text()) if args.tools else None
    sent_at = time.time()
    review = client.submit(json.loads(args.plan.read_text()), agent=args.agent, tools=tools)
    print(json.dumps({"event": "submitted", "id": review.id, "url": review.url, "sent_at": sent_at}), flush=True)
    review = client.wait(review, timeout=args.wait)
    print(json.dumps({"event": "decided", "review": review.data}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
