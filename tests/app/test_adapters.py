"""Issue 28, item 3: the light client's adapters against the real libraries (LangGraph,
pydantic-ai with its TestModel, the OpenAI Agents SDK with a local OpenAI-compatible server),
step decisions through the client, and the signed webhooks to the submitting agent. One studio
API per module: the studio's own routes over real services, served by uvicorn on a real socket;
a person's decisions are made in the store (reviews) or by the client (steps)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, TypedDict

import pytest
import uvicorn
from starlette.applications import Starlette

from conftest import TEST_API_KEY
from core import Actor, Role, Settings
from llm_server import LLMServer
from plan_studio_client import AsyncReviewClient, ReviewClient, verify_callback
from studio.api._fallback import api_fallback
from studio.api._review_api import api_routes
from studio.api._run_decisions_api import run_routes
from studio.workbench import submit_review
from studio.workbench._api_token import ensure_token
from studio.workbench._services import Services, build_services
from studio.workbench._webhooks import Notifier
from webhook_receiver import receiver
from workbench_helpers import TODAY, run_until_a_marked_step_waits


@dataclasses.dataclass
class Api:
    url: str
    token: str
    services: Services


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("adapters") / "data", today=TODAY, approve_writes=True,
                        webhook_timeout=1)
    services = build_services(settings)
    services = dataclasses.replace(services, notifier=Notifier(settings, backoff=0.05))  # quick retries
    routes = [*api_routes(lambda: services), *run_routes(lambda: services)]
    app = Starlette(routes=[*routes, api_fallback(routes, lambda: services)])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the API did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Api(f"http://127.0.0.1:{port}", ensure_token(settings.data_dir), services)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def decide_when_sent(api: Api, agent: str, *, approve: bool = True, edit: Callable[[Any], Any] | None = None,
                     comment: str = "") -> threading.Thread:
    """A person, in another thread: once ``agent``'s review is pending, decides it (``edit``
    changes the plan first)."""
    def person() -> None:
        deadline = time.monotonic() + 60
        while not (pending := api.services.store.list_reviews("pending", agent=agent)):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        review = api.services.store.get_review(pending[0].id)
        plan = edit(review.plan) if edit else review.plan
        api.services.store.decide_review(review.id, approve=approve, plan=plan, comment=comment)
    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    return thread


def with_params(step_id: str, params: dict[str, Any]) -> Callable[[Any], Any]:
    def edit(plan: Any) -> Any:
        return plan.model_copy(update={"steps": [s.model_copy(update={"params": params}) if s.id == step_id else s
                                                 for s in plan.steps]})
    return edit


# -- LangGraph -------------------------------------------------------------------------------------

class State(TypedDict, total=False):
    plan: dict
    review: dict


def test_a_langgraph_node_sends_the_plan_and_goes_on_with_it_as_edited(api: Api) -> None:
    from langgraph.graph import END, START, StateGraph
    from plan_studio_client.langgraph import review_node

    plan = {"goal": "Facilities in Berlin", "steps": [{"id": "fac", "tool": "facilities_list",
                                                       "params": {"location": "Berlin"}}]}
    person = decide_when_sent(api, "langgraph", edit=with_params("fac", {"location": "Leipzig"}))
    # The user's code: four lines.
    graph = StateGraph(State)
    graph.add_node("review", review_node(ReviewClient(api.url, token=api.token)))
    graph.add_edge(START, "review"); graph.add_edge("review", END)  # noqa: E702
    out = graph.compile().invoke({"plan": plan})
    person.join(timeout=30)
    assert out["review"]["status"] == "approved"
    assert out["plan"]["steps"][0]["params"] == {"location": "Leipzig"}

    async def rejected() -> dict:
        graph = StateGraph(State)
        graph.add_node("review", review_node(AsyncReviewClient(api.url, token=api.token), agent="lg-async"))
        graph.add_edge(START, "review"); graph.add_edge("review", END)  # noqa: E702
        return await graph.compile().ainvoke({"plan": plan})
    person = decide_when_sent(api, "lg-async", approve=False, comment="not Berlin")
    out = asyncio.run(rejected())
    person.join(timeout=30)
    assert out["review"] == {**out["review"], "status": "rejected", "comment": "not Berlin"}
    assert out["plan"] == plan  # as sent: nothing approved


# -- pydantic-ai -----------------------------------------------------------------------------------

def test_pydantic_ai_deferred_tool_requests_are_answered_from_the_review(api: Api) -> None:
    from pydantic_ai import Agent, DeferredToolRequests
    from pydantic_ai.models.test import TestModel
    from plan_studio_client.pydantic_ai import review_deferred

    ran: list[tuple[str, str]] = []
    agent = Agent(TestModel(), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        ran.append(("delete_file", path))
        return f"deleted {path}"

    @agent.tool_plain(requires_approval=True)
    def send_mail(to: str) -> str:
        ran.append(("send_mail", to))
        return f"sent to {to}"

    result = agent.run_sync("Tidy up and tell Bob")
    assert isinstance(result.output, DeferredToolRequests) and len(result.output.approvals) == 2
    calls = {c.tool_name: c for c in result.output.approvals}

    def edit(plan: Any) -> Any:  # the person edits delete_file's path and removes send_mail
        kept = [s.model_copy(update={"params": {"path": "/tmp/old.log"}}) for s in plan.steps if s.tool == "delete_file"]
        return plan.model_copy(update={"steps": kept})
    person = decide_when_sent(api, "pydantic-ai", edit=edit, comment="only the log")
    # The user's code: two lines.
    answers = review_deferred(ReviewClient(api.url, token=api.token), result.output, goal="Tidy up")
    result = agent.run_sync(message_history=result.all_messages(), deferred_tool_results=answers)
    person.join(timeout=30)
    assert ran == [("delete_file", "/tmp/old.log")]
    assert answers.approvals[calls["send_mail"].tool_call_id].message.startswith("Not run: the reviewer removed")
    assert isinstance(result.output, str)


# -- OpenAI Agents SDK -----------------------------------------------------------------------------

def _tool_call_reply(name: str, arguments: dict[str, Any], call_id: str) -> bytes:
    return json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": "test-model",
                       "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                           "role": "assistant", "content": None, "tool_calls": [{
                               "id": call_id, "type": "function",
                               "function": {"name": name, "arguments": json.dumps(arguments)}}]}}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()


def test_openai_agents_approval_requests_are_answered_from_the_review(api: Api) -> None:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
    from openai import AsyncOpenAI
    from plan_studio_client.openai_agents import areview_interruptions

    set_tracing_disabled(True)
    ran: list[str] = []

    @function_tool(needs_approval=True)
    def cancel_order(order_id: str) -> str:
        """Cancel an order."""
        ran.append(order_id)
        return f"cancelled {order_id}"

    server = LLMServer().start()
    try:
        server.raw(_tool_call_reply("cancel_order", {"order_id": "A-1"}, "call_1"))
        server.reply("Order A-1 is cancelled.")
        model = OpenAIChatCompletionsModel("test-model", AsyncOpenAI(base_url=server.base_url, api_key=TEST_API_KEY))
        agent = Agent(name="shop", model=model, tools=[cancel_order])

        async def user_code() -> Any:  # the user's code: three lines
            client = AsyncReviewClient(api.url, token=api.token)
            result = await Runner.run(agent, "Cancel order A-1")
            return await Runner.run(agent, await areview_interruptions(client, result, goal="Cancel A-1"))
        person = decide_when_sent(api, "openai-agents")
        result = asyncio.run(user_code())
        person.join(timeout=30)
    finally:
        server.stop()
    assert ran == ["A-1"] and result.final_output == "Order A-1 is cancelled."
    sent = api.services.store.get_review(api.services.store.list_reviews(agent="openai-agents")[0].id)
    assert [(s.tool, s.params) for s in sent.plan.steps] == [("cancel_order", {"order_id": "A-1"})]


# -- step decisions and webhooks to the agent ------------------------------------------------------

def test_a_waiting_step_is_decided_through_the_client_and_its_agent_told_signed(api: Api) -> None:
    agent = Actor(id="agent:stepper", name="stepper", kind="agent", role=Role.reviewer)
    with receiver() as got:
        submit_review(api.services, {"plan": {"steps": [{"id": "a", "tool": "say", "params": {"text": "hi"}}]},
                                     "callback_url": got.url, "callback_secret": "s" * 32}, actor=agent)
        bench, marked = run_until_a_marked_step_waits(api.services)
        bench.run.submitted_by = agent.id  # the run of that agent's plan
        client = ReviewClient(api.url, token=api.token)
        [step] = client.waiting(bench.run.id).waiting
        stale = client.approve(bench.run.id, step, shown_hash="0" * 64)
        assert (stale.decided, stale.why) == (False, "stale")
        decided = client.approve(bench.run.id, step)
        assert decided.decided and decided.settled
        [posted] = got.wait_for(1)
        raw = json.dumps(posted, ensure_ascii=False).encode()  # the receiver keeps the parsed body
        headers = got.headers[0]
    assert posted == {**posted, "kind": "step.decided", "run_id": bench.run.id, "step_id": marked, "approved": True}
    assert verify_callback("s" * 32, raw, headers) == posted
    with pytest.raises(ValueError, match="does not match"):
        verify_callback("t" * 32, raw, headers)


def _silent_port() -> tuple[socket.socket, str]:
    """A port that takes connections and never answers: a webhook that times out."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    return listener, f"http://127.0.0.1:{listener.getsockname()[1]}/hook"


def test_a_decided_review_is_posted_to_its_agent_retried_and_never_blocking(api: Api) -> None:
    from studio.workbench import Workbench, decide_review, open_review

    def decide(review_id: str) -> None:
        bench = Workbench()
        assert open_review(bench, api.services.store, review_id).ok
        out = decide_review(bench, api.services.store, review_id, approve=True, services=api.services,
                            validator=lambda: api.services.validator)
        assert out.ok, out.notices

    plan = {"steps": [{"id": "f", "tool": "facilities_list", "params": {"location": "Berlin"}}]}
    listener, silent = _silent_port()
    try:
        with receiver(statuses=[500, 500]) as got:
            made = submit_review(api.services, {"plan": plan, "callback_url": got.url})
            hung = submit_review(api.services, {"plan": plan, "callback_url": silent})
            decide(hung.id)  # its post hangs until the timeout, on the sender's thread
            decide(made.id)  # answered 500 twice, then 200: the third attempt
            [posted] = got.wait_for(1)
            assert got.answered == [500, 500, 200]
            raw = json.dumps(posted, ensure_ascii=False).encode()
            secret = api.services.store.get_review(made.id).callback_secret
            assert verify_callback(secret, raw, got.headers[0]) == posted
    finally:
        listener.close()
    assert posted == {"kind": "review.decided", "review_id": made.id, "status": "approved", "comment": "",
                      "decided_at": posted["decided_at"]}
    assert api.services.store.get_review(hung.id).status == "approved"


def test_a_callback_that_does_not_read_is_refused_naming_the_field(api: Api) -> None:
    client = ReviewClient(api.url, token=api.token)
    plan = {"steps": [{"id": "f", "tool": "facilities_list", "params": {"location": "Berlin"}}]}
    for kwargs, field in (({"callback_url": "ftp://x"}, "callback_url"),
                          ({"callback_url": "http://127.0.0.1:9/h", "callback_secret": "short"}, "callback_secret")):
        with pytest.raises(Exception) as caught:
            client.submit(plan, **kwargs)
        assert caught.value.status == 400 and caught.value.field == field
    made = client.submit(plan, callback_url="http://127.0.0.1:9/h")
    assert made.callback_secret and len(made.callback_secret) >= 32  # told once, here
    assert "callback_secret" not in client.get(made).model_extra
