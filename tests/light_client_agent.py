"""An agent using only the light client (run by tests/app/test_light_client.py with the Python
of a fresh venv where nothing but plan-studio-client is installed): one JSON line per event."""

import asyncio
import json
import sys

from plan_studio_client import AsyncReviewClient, ReviewClient, ReviewServiceError

url, plan_file = sys.argv[1], sys.argv[2]
plan = json.loads(open(plan_file).read())


def say(**event):
    print(json.dumps(event), flush=True)


with ReviewClient(url) as client:  # the token from PLAN_STUDIO_TOKEN
    review = client.submit(plan, agent="light-agent")
    say(event="submitted", review_id=review.review_id, id=review.id, status=review.status)
    review = client.wait(review, timeout=60)
    say(event="decided", status=review.status, plan=review.plan, verdicts=review.verdicts(), comment=review.comment)
    second = client.submit(plan, agent="light-agent")
    say(event="withdrawn", status=client.withdraw(second, reason="not needed").status)


async def async_side():
    async with AsyncReviewClient(url) as client:
        review = await client.submit(plan, agent="light-agent-async")
        fetched = await client.get(review.review_id)
        withdrawn = await client.withdraw(review)
        try:
            await client.withdraw(review)
            again = 0
        except ReviewServiceError as exc:
            again = exc.status
        say(event="async", status=fetched.status, withdrawn=withdrawn.status, again=again)

asyncio.run(async_side())
