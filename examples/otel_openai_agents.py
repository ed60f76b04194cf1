"""An OpenAI Agents SDK agent whose spans go straight to AEM Monitor's topic, no Collector: the marked lines.

    pip install openai-agents openinference-instrumentation-openai-agents
    python examples/otel_openai_agents.py --bootstrap-servers localhost:9092 --release v1
    aem run --input-format otlp_proto --topic otlp_spans --group-id aem-otlp --metrics-port 9465 \\
            --dlq-topic otlp_spans.dlq --bootstrap-servers localhost:9092

The SDK's own tracing is not OpenTelemetry; OpenInference's instrumentor turns it into OTel spans
(model calls with their tool calls, one span per tool run, the agent). It talks to OpenAI with
`OPENAI_API_KEY`, or to any OpenAI-compatible server given with `--base-url`.
"""

from __future__ import annotations

import argparse
import os
import sys

from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool
from agents.exceptions import AgentsException
from openai import APIError, AsyncOpenAI
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

from monitor.otel import kafka_span_processor


@function_tool
def search_flights(origin: str, destination: str, date: str) -> dict:
    """Search flights between two airports on a date."""
    return {"flights": [{"flight_id": "UA-100", "origin": origin, "destination": destination, "date": date}]}


@function_tool
def book_flight(flight_id: str, passenger: str) -> dict:
    """Book a flight for a passenger."""
    return {"booking_id": "BK-100", "flight_id": flight_id, "passenger": passenger}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap-servers", default="localhost:9092")
    parser.add_argument("--topic", default="otlp_spans")
    parser.add_argument("--release", default="v1", help="becomes the release label of every verdict")
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible endpoint (default: OpenAI's)")
    parser.add_argument("--model", default="gpt-4o-mini")
    args = parser.parse_args()

    provider = TracerProvider(
        resource=Resource.create({"service.name": "booking-agent", "service.version": args.release})
    )
    provider.add_span_processor(kafka_span_processor(args.bootstrap_servers, args.topic))  # 1. spans to Kafka
    OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)  # 2. the SDK's traces as OTel spans

    client = AsyncOpenAI(base_url=args.base_url, api_key=os.environ.get("OPENAI_API_KEY", "not-set"))
    agent = Agent(
        name="booking-agent",
        instructions="You book flights. Search first, then book the flight found.",
        tools=[search_flights, book_flight],
        model=OpenAIChatCompletionsModel(model=args.model, openai_client=client),
    )
    try:
        result = Runner.run_sync(agent, "Book me a flight from SFO to JFK on 2024-08-01. I'm Maria Lopez.")
        print(result.final_output)
    except (APIError, AgentsException) as exc:  # the failed run's spans are still shipped, below
        sys.exit(f"error: the agent run failed ({args.base_url or 'OpenAI'}): {type(exc).__name__}: {exc}")
    finally:
        provider.shutdown()  # 3. flush the last spans before the process exits


if __name__ == "__main__":
    main()
