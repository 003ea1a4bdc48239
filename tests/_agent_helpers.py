"""What the agent-framework tests share: the question, the two tools, the typed answers.

A class's first agent: ask for the weather in Paris and what to wear; ``get_weather`` gives
the temperature, ``what_to_wear`` needs it (so the second call waits for the first result),
and the typed answer is filled from both. Used by ``test_emulator_agents`` (pydantic-ai,
the OpenAI Agents SDK, instructor) and ``test_emulator_langchain``.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import BaseModel

Protocol = Literal["chat", "messages"]
PROTOCOLS = pytest.mark.parametrize("protocol", ["chat", "messages"])
QUESTION = "What is the weather in Paris, and what should I wear?"
GPT = "gpt-5.4"
CLAUDE = "claude-sonnet-4-6"
PARIS = {"city": "Paris", "temperature_c": 18, "sky": "sunny"}
"""What ``get_weather`` returns for Paris, as the typed answers must report it."""


class Outfit(BaseModel):
    city: str
    temperature_c: float
    sky: str
    advice: str


class CityWeather(BaseModel):
    city: str
    temperature_c: float
    sky: Literal["sunny", "cloudy", "rain"]


def get_weather(city: str) -> dict[str, Any]:
    """Current temperature (Celsius) and sky for a city."""
    return {"city": city, "temperature_c": 18, "sky": "sunny"}


def what_to_wear(temperature_c: float) -> str:
    """Suggest clothes for a temperature in Celsius."""
    return "a light jacket" if temperature_c < 20 else "a t-shirt"


def check_outfit(value: Any) -> None:
    """``value`` is the Outfit for Paris, filled from both tools' results."""
    assert isinstance(value, Outfit)
    assert (value.city, value.temperature_c, value.sky) == ("Paris", 18, "sunny")
    assert "a light jacket" in value.advice
