"""Run the scripted booking agent once with a real framework, its spans shipped to Kafka by `monitor.otel`.

    python -m tests.agents.drive FRAMEWORK RELEASE --bootstrap HOST:PORT --topic T --encoding otlp_proto

One process per run, as an agent runs beside the monitor (and because the instrumentors patch the
`openai` client for the whole process). The run is wrapped in an evaluation span carrying
`aem.reference_id` and `aem.final`, as a test harness does; prints one JSON line: the conversation id the framework
was given (null when it has none, so the trace is the conversation) and the harness span's trace id.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import uuid
from collections.abc import Callable
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from monitor.otel import kafka_span_processor
from tests.agents import booking
from tests.agents.fake_llm import FakeLLM

MODEL = "gpt-booking-fake"
# The harness names the golden dialog and, on the root span, ends the conversation (docs/otlp.md).
HARNESS = {"aem.reference_id": booking.REFERENCE_ID, "aem.final": True}


def run_pydantic_ai(provider: TracerProvider, release: str) -> str | None:
    from pydantic_ai import Agent, InstrumentationSettings
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    steps = booking.script(release)

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = steps[sum(1 for m in messages if isinstance(m, ModelResponse))]
        if step.text is not None:
            return ModelResponse(parts=[TextPart(step.text)])
        return ModelResponse(parts=[ToolCallPart(c.name, c.arguments, tool_call_id=c.id) for c in step.calls])

    agent = Agent(FunctionModel(model), name="booking-agent", instructions=booking.INSTRUCTIONS)
    agent.tool_plain(booking.search_flights)
    agent.tool_plain(booking.book_flight)
    agent.instrument = InstrumentationSettings(tracer_provider=provider)
    conversation = f"pydantic-ai-{uuid.uuid4().hex[:12]}"
    agent.run_sync(booking.PROMPT, conversation_id=conversation)
    return conversation


def run_openai_agents(provider: TracerProvider, release: str) -> str | None:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)
    with FakeLLM(booking.script(release)) as llm:
        client = AsyncOpenAI(base_url=llm.base_url, api_key="not-used", max_retries=0)
        agent = Agent(
            name="booking-agent",
            instructions=booking.INSTRUCTIONS,
            tools=[function_tool(booking.search_flights), function_tool(booking.book_flight)],
            model=OpenAIChatCompletionsModel(model=MODEL, openai_client=client),
        )
        asyncio.run(Runner.run(agent, booking.PROMPT))
    return None


def chat_loop(llm: FakeLLM) -> None:
    """A hand-written agent loop on the `openai` client: ask, run the tools asked for, ask again."""
    import openai

    client = openai.OpenAI(base_url=llm.base_url, api_key="not-used", max_retries=0)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": booking.INSTRUCTIONS},
        {"role": "user", "content": booking.PROMPT},
    ]
    while True:
        answer = client.chat.completions.create(model=MODEL, messages=messages, tools=booking.openai_tools())
        message = answer.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return
        for call in message.tool_calls:
            result = booking.TOOLS[call.function.name](**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})


def run_openai_otel(provider: TracerProvider, release: str) -> str | None:
    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=provider)
    with FakeLLM(booking.script(release)) as llm:
        chat_loop(llm)
    return None


def run_openai_openinference(provider: TracerProvider, release: str) -> str | None:
    from openinference.instrumentation import using_session
    from openinference.instrumentation.openai import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=provider)
    session = f"session-{uuid.uuid4().hex[:12]}"
    with FakeLLM(booking.script(release)) as llm, using_session(session):
        chat_loop(llm)
    return session


FRAMEWORKS: dict[str, Callable[[TracerProvider, str], str | None]] = {
    "pydantic_ai": run_pydantic_ai,
    "openai_agents": run_openai_agents,
    "openai_otel": run_openai_otel,
    "openai_openinference": run_openai_openinference,
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("framework", choices=sorted(FRAMEWORKS))
    parser.add_argument("release")
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--encoding", default="otlp_proto")
    args = parser.parse_args()
    resource = Resource.create({"service.name": "booking-agent", "service.version": args.release})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(kafka_span_processor(args.bootstrap, args.topic, args.encoding))
    harness = provider.get_tracer("booking-eval")
    with harness.start_as_current_span("booking eval", attributes=HARNESS) as root:
        conversation = FRAMEWORKS[args.framework](provider, args.release)
        trace_id = format(root.get_span_context().trace_id, "032x")
    provider.shutdown()  # flushes the batch processor: every span is on the topic when this returns
    print(json.dumps({"conversation_id": conversation, "trace_id": trace_id}))


if __name__ == "__main__":
    trace.set_tracer_provider(TracerProvider())  # nothing reaches the global provider by accident
    main()
