"""The emulator's JSON Schema instance generator: valid, deterministic, hint-aware.

Schemas come the way the SDKs send them: pydantic's own ``model_json_schema()``, the openai
SDK's strict transform (``.parse()``, strict tools) and the anthropic SDK's transform (which
moves bounds and patterns into the description). Every instance is checked with
``jsonschema`` against the original schema and with the pydantic model itself.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date, datetime
from enum import Enum
from typing import Any, Literal

import jsonschema
import pytest
from anthropic.lib._parse._transform import transform_schema
from openai.lib._pydantic import to_strict_json_schema
from pydantic import BaseModel, Field

from mediagen_nb.emulator._schema_instance import instance_for


class Color(Enum):
    RED = "red"
    GREEN = "green"


class Address(BaseModel):
    street: str = Field(min_length=3, max_length=40)
    postcode: str = Field(pattern=r"^\d{5}$")


class Node(BaseModel):
    label: str
    children: list[Node] = []


class Everything(BaseModel):
    name: str
    age: int = Field(ge=18, le=120)
    score: float = Field(gt=0, lt=1)
    ratio: float = Field(multiple_of=0.5, ge=1, le=3)
    kind: Literal["a", "b"]
    color: Color
    when: datetime
    day: date
    ident: uuid.UUID
    nickname: str | None = None
    home: Address
    others: list[Address] = Field(min_length=1, max_length=3)
    tags: list[str] = Field(max_length=2)
    tree: Node
    code: str = Field(pattern=r"^[A-Z]{2}-\d{3}$")
    flags: dict[str, bool] = {}


class Flat(BaseModel):
    city: str
    unit: Literal["celsius", "fahrenheit"]
    days: int = Field(gt=0, le=14)


SCHEMA_FORMS: dict[str, Callable[[type[BaseModel]], dict[str, Any]]] = {
    "pydantic": lambda m: m.model_json_schema(),
    "openai-strict": to_strict_json_schema,
    "anthropic": transform_schema,
}


@pytest.mark.parametrize("form", sorted(SCHEMA_FORMS))
@pytest.mark.parametrize("model", [Everything, Flat, Node, Address])
@pytest.mark.parametrize("seed", [0, 1, 99])
def test_instances_are_valid(form: str, model: type[BaseModel], seed: int) -> None:
    schema = SCHEMA_FORMS[form](model)
    value = instance_for(schema, seed=seed, strict=form == "openai-strict")
    jsonschema.validate(value, model.model_json_schema())
    model.model_validate(value)


def test_same_inputs_give_the_same_instance_and_strict_fills_every_property() -> None:
    schema = to_strict_json_schema(Everything)
    assert instance_for(schema, seed=5, strict=True) == instance_for(schema, seed=5, strict=True)
    value = instance_for(schema, seed=5, strict=True)
    assert set(value) == set(schema["properties"])
    assert value["nickname"] is not None  # a nullable field still gets a value


def test_hints_and_context_choose_values() -> None:
    schema = Flat.model_json_schema()
    value = instance_for(schema, hints={"city": "Lyon"}, context="how warm in fahrenheit?")
    assert value == {"city": "Lyon", "unit": "fahrenheit", "days": value["days"]}
    assert instance_for(schema, context="no unit named")["unit"] == "celsius"


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"const": 7}, 7),
        ({"enum": ["x", "y"]}, "x"),
        ({"type": "boolean"}, True),
        ({"type": "null"}, None),
        ({"type": ["null", "integer"], "minimum": 4, "maximum": 4}, 4),
        ({"type": "array", "prefixItems": [{"const": 1}, {"const": "a"}]}, [1, "a"]),
        ({"type": "string", "format": "email"}, "ada@example.com"),
        ({"type": "integer", "description": "{minimum: 40, maximum: 40}"}, 40),
        ({"allOf": [{"properties": {"a": {"const": 1}}, "required": ["a"]}]}, {"a": 1}),
    ],
)
def test_keywords(schema: dict[str, Any], expected: Any) -> None:
    assert instance_for(schema) == expected
