"""Plan Studio's light client: send a plan for a person to review, wait for the decision,
withdraw it, decide a run's waiting steps; ``httpx`` and ``pydantic`` only.

    from plan_studio_client import ReviewClient
    with ReviewClient("http://127.0.0.1:8501", token=TOKEN) as client:
        review = client.wait(client.submit(plan, agent="my-agent"), timeout=600)
        if review.approved:
            run(review.plan)                      # as approved, the reviewer's edits included

Adapters (optional modules, each needing its library): ``plan_studio_client.langgraph``,
``plan_studio_client.pydantic_ai`` and ``plan_studio_client.openai_agents``.
"""

from ._calls import DEFAULT_URL, TOKEN_VARIABLE, URL_VARIABLE
from ._client import AsyncReviewClient, ReviewClient
from ._models import DecisionResult, Review, ReviewServiceError, StepVerdict, Waiting, WaitingStep
from ._signature import SIGNATURE_HEADER, TIMESTAMP_HEADER, verify_callback

__all__ = ["AsyncReviewClient", "DEFAULT_URL", "DecisionResult", "Review", "ReviewClient", "ReviewServiceError",
           "SIGNATURE_HEADER", "StepVerdict", "TIMESTAMP_HEADER", "TOKEN_VARIABLE", "URL_VARIABLE", "Waiting",
           "WaitingStep", "verify_callback"]
