"""The scripted booking agent of the conformance suite: the same task for every framework.

Release `v1` does it right. Release `v2` ("regressed") searches the wrong date: the search is the root
cause (`inconsistent_parameter_values` on `date`), the booking of the flight it found and the reply that
confirms it cascade from it. The tools are deterministic, so the data flow is visible in the outputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agents.fake_llm import Call, Step

REPO = Path(__file__).resolve().parents[2]
REFERENCE_FILE = REPO / "examples" / "booking_reference.json"
REFERENCE_ID = "booking"
GOOD, REGRESSED = "v1", "v2"
PROMPT = "Book me a flight from SFO to JFK on 2024-08-01, please. I'm Maria Lopez."
INSTRUCTIONS = "You book flights. Search first, then book the flight found."
DATES = {GOOD: "2024-08-01", REGRESSED: "2024-08-10"}


def flight_for(date: str) -> str:
    return "UA-100" if date == "2024-08-01" else "UA-900"


def search_flights(origin: str, destination: str, date: str) -> dict[str, Any]:
    """Search flights between two airports on a date."""
    return {"flights": [{"flight_id": flight_for(date), "origin": origin, "destination": destination, "date": date}]}


def book_flight(flight_id: str, passenger: str) -> dict[str, Any]:
    """Book a flight for a passenger."""
    return {"booking_id": "BK-" + flight_id.split("-")[1], "flight_id": flight_id, "passenger": passenger}


def reply_for(release: str) -> str:
    flight = flight_for(DATES[release])
    return (
        f"You're booked on {flight} from SFO to JFK on {DATES[release]}, Maria. "
        f"Your confirmation number is BK-{flight.split('-')[1]}."
    )


def search_args(release: str) -> dict[str, Any]:
    return {"origin": "SFO", "destination": "JFK", "date": DATES[release]}


def book_args(release: str) -> dict[str, Any]:
    return {"flight_id": flight_for(DATES[release]), "passenger": "Maria Lopez"}


def script(release: str) -> list[Step]:
    """What the model says at each step of the run (for the fake OpenAI-compatible endpoint)."""
    return [
        Step(calls=(Call("call_search", "search_flights", search_args(release)),)),
        Step(calls=(Call("call_book", "book_flight", book_args(release)),)),
        Step(text=reply_for(release)),
    ]


def openai_tools() -> list[dict[str, Any]]:
    """The two tools as chat-completions `tools` entries."""
    string = {"type": "string"}
    return [
        {
            "type": "function",
            "function": {
                "name": "search_flights",
                "description": search_flights.__doc__,
                "parameters": {
                    "type": "object",
                    "properties": {"origin": string, "destination": string, "date": string},
                    "required": ["origin", "destination", "date"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "book_flight",
                "description": book_flight.__doc__,
                "parameters": {
                    "type": "object",
                    "properties": {"flight_id": string, "passenger": string},
                    "required": ["flight_id", "passenger"],
                },
            },
        },
    ]


TOOLS = {"search_flights": search_flights, "book_flight": book_flight}
