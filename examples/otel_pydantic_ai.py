"""A pydantic-ai agent whose spans go straight to AEM Monitor's topic, no Collector: the three marked lines.

    python examples/otel_pydantic_ai.py --bootstrap-servers localhost:9092 --release v1
    aem run --input-format otlp_proto --topic otlp_spans --group-id aem-otlp --metrics-port 9465 \\
            --dlq-topic otlp_spans.dlq --bootstrap-servers localhost:9092

It runs offline on pydantic-ai's `TestModel` (which calls each tool once, then answers); give
`--model openai:gpt-4o` (any model name pydantic-ai knows, with its API key set) for a real one.
"""

from __future__ import annotations

import argparse
import sys

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from pydantic_ai import Agent, InstrumentationSettings
from pydantic_ai.exceptions import AgentRunError
from pydantic_ai.models.test import TestModel

from monitor.otel import kafka_span_processor


def search_flights(origin: str, destination: str, date: str) -> dict:
    """Search flights between two airports on a date."""
    return {"flights": [{"flight_id": "UA-100", "origin": origin, "destination": destination, "date": date}]}


def book_flight(flight_id: str, passenger: str) -> dict:
    """Book a flight for a passenger."""
    return {"booking_id": "BK-100", "flight_id": flight_id, "passenger": passenger}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap-servers", default="localhost:9092")
    parser.add_argument("--topic", default="otlp_spans")
    parser.add_argument("--release", default="v1", help="becomes the release label of every verdict")
    parser.add_argument("--model", default=None, help="a pydantic-ai model name (default: the offline TestModel)")
    args = parser.parse_args()

    provider = TracerProvider(
        resource=Resource.create({"service.name": "booking-agent", "service.version": args.release})
    )
    provider.add_span_processor(kafka_span_processor(args.bootstrap_servers, args.topic))  # 1. spans to Kafka
    Agent.instrument_all(InstrumentationSettings(tracer_provider=provider))  # 2. pydantic-ai's GenAI spans

    agent = Agent(args.model or TestModel(), name="booking-agent", instructions="You book flights.")
    agent.tool_plain(search_flights)
    agent.tool_plain(book_flight)
    try:
        print(agent.run_sync("Book me a flight from SFO to JFK on 2024-08-01. I'm Maria Lopez.").output)
    except AgentRunError as exc:  # the failed run's spans are still shipped, below
        sys.exit(f"error: the agent run failed ({args.model}): {type(exc).__name__}: {exc}")
    finally:
        provider.shutdown()  # 3. flush the last spans before the process exits


if __name__ == "__main__":
    main()
