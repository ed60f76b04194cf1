"""Input shapes of docs/dialog-files.md: turns, payloads, dialogs (aligned, unaligned, judge-only)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails, PydanticCustomError

from monitor.models.vocabulary import TurnType

_FIELD_SETS: dict[frozenset[str], set[str]] = {}


def _shared_fields_set(fields: set[str]) -> set[str]:
    """One set object per distinct combination of set fields (a handful per model class)."""
    key = frozenset(fields)
    shared = _FIELD_SETS.get(key)
    if shared is None:
        shared = _FIELD_SETS.setdefault(key, set(key))
    return shared


UNKNOWN_FIELD = "unknown field (user metadata goes in an 'extra' object)"


def first_error(exc: ValidationError) -> ErrorDetails:
    """The error to report of a validation failure: an unknown field before the rest, since a misspelt key
    (`respone`) also makes the field it stands for missing, and only the unknown key names the typo."""
    errors = exc.errors(include_url=False)
    return next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])


def error_message(error: ErrorDetails) -> str:
    """A validation error's message for people: an unknown field says where metadata goes instead."""
    return UNKNOWN_FIELD if error["type"] == "extra_forbidden" else error["msg"]


# Free-form user metadata: accepted on dialogs, turns, tool specs and trace events, never read by scoring.
Extra = dict[str, Any] | None


class _Model(BaseModel):
    """Frozen, unknown fields forbidden (a typo must not silently drop a field); instances share their
    fields-set with every like instance.

    pydantic gives each instance its own set of the field names it was given (216 bytes for a payload
    of a few fields), and an open conversation holds a payload per turn. A frozen model never adds to
    that set, and `model_copy` copies it before it adds an updated name, so one shared set per
    combination is safe (tests/scoring/test_payload_fields_set.py).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    def model_post_init(self, context: Any, /) -> None:
        object.__setattr__(self, "__pydantic_fields_set__", _shared_fields_set(self.__pydantic_fields_set__))


class ToolCall(_Model):
    """An action: a tool invocation with its arguments and (optionally) what it returned."""

    tool_id: str
    action: str
    args: dict[str, Any] = Field(default_factory=dict)
    output: Any = None


class Reply(_Model):
    """The agent's natural-language reply."""

    response: str


class UserMessage(_Model):
    """A user utterance: context only, never scored."""

    content: str


Payload = ToolCall | Reply | UserMessage

_PAYLOAD_FOR_TURN: dict[str, type[_Model]] = {"Tool": ToolCall, "Agent": Reply, "User": UserMessage}


def parse_payload(turn: str, value: Any, key: str = "payload") -> Payload | None:
    """Validate a gold/predict payload against the model its turn type calls for.

    Errors keep their place: a `payload` error whose context names the path inside the payload.
    """
    if value is None:
        return None
    model = _PAYLOAD_FOR_TURN[turn]
    if isinstance(value, model):
        return value  # type: ignore[return-value]
    try:
        return model.model_validate(value)  # type: ignore[return-value]
    except ValidationError as exc:
        first = first_error(exc)
        path = ".".join([key, *(str(p) for p in first["loc"])])
        message = error_message(first)
        raise PydanticCustomError("payload", "{path}: {message}", {"path": path, "message": message}) from None


# Names pydantic puts in an error location for union members and validators, not fields.
_UNION_TAGS = frozenset({"Tool", "Agent", "User", "ToolCall", "Reply", "UserMessage"})


def error_path(loc: tuple[Any, ...]) -> str:
    """A pydantic error location as a field path people read: `turns[0].predict_turn.args`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _UNION_TAGS or "function-" in str(part):
            continue
        else:
            out += f".{part}" if out else str(part)
    return out


class ToolSpec(_Model):
    """One catalog entry for judge-only mode: a tool action and the JSON Schema of its arguments."""

    tool_id: str
    action: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    description: str | None = None
    read_only: bool = False  # no side effects: an extra call of it is not a failure (reference alignment)
    extra: Extra = None


class _TypedTurn(_Model):
    turn: TurnType
    extra: Extra = None

    @model_validator(mode="before")
    @classmethod
    def _payloads_match_turn(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        turn = data.get("turn")
        if not isinstance(turn, str) or turn not in _PAYLOAD_FOR_TURN:
            return data  # the enum check reports it (any type, hashable or not)
        data = dict(data)
        for key in ("gold_turn", "predict_turn"):
            if data.get(key) is not None:
                data[key] = parse_payload(turn, data[key], key)
        return data


class TurnIn(_TypedTurn):
    """A turn of an aligned dialog (shapes 1, 2 and 4)."""

    turn_no: int = Field(ge=0)
    gold_turn: ToolCall | Reply | UserMessage | None = None
    predict_turn: ToolCall | Reply | UserMessage | None = None
    tags: list[str] = Field(default_factory=list)
    depends_on: list[int] = Field(default_factory=list)

    @model_validator(mode="after")
    def _has_prediction(self) -> TurnIn:
        if self.turn != "User" and self.predict_turn is None:
            raise ValueError("an Agent or Tool turn needs predict_turn")
        return self


class GoldTurnIn(_TypedTurn):
    """A reference turn of an unaligned dialog (shape 3)."""

    gold_turn: ToolCall | Reply | UserMessage
    tags: list[str] = Field(default_factory=list)


class PredictTurnIn(_TypedTurn):
    """A predicted turn of an unaligned dialog (shape 3)."""

    turn_no: int = Field(ge=0)
    predict_turn: ToolCall | Reply | UserMessage
    depends_on: list[int] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)


class Dialog(_Model):
    """One dialog in any accepted shape; exactly one of `turns` or `gold_turns`+`predict_turns`."""

    dialog_id: str
    release: str | None = None
    agent: str = "default"
    turns: list[TurnIn] | None = None
    gold_turns: list[GoldTurnIn] | None = None
    predict_turns: list[PredictTurnIn] | None = None
    tools: list[ToolSpec] | None = None
    extra: Extra = None

    @model_validator(mode="after")
    def _one_shape(self) -> Dialog:
        unaligned = self.gold_turns is not None or self.predict_turns is not None
        if self.turns is not None and unaligned:
            raise ValueError("give either turns or gold_turns/predict_turns, not both")
        if self.turns is None and not unaligned:
            raise ValueError("a dialog needs turns, or gold_turns and predict_turns")
        if unaligned and (self.gold_turns is None or self.predict_turns is None):
            raise ValueError("an unaligned dialog needs both gold_turns and predict_turns")
        return self

    @model_validator(mode="after")
    def _distinct_turn_numbers(self) -> Dialog:
        """A turn number names one turn: a second entry with it is an error (the stream would drop it)."""
        seen: set[int] = set()
        for turn in self.turns if self.turns is not None else self.predict_turns or []:
            if turn.turn_no in seen:
                raise ValueError(f"turn_no {turn.turn_no} appears twice: each turn needs its own number")
            seen.add(turn.turn_no)
        return self

    @property
    def unaligned(self) -> bool:
        return self.turns is None
