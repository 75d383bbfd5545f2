"""Annotations as JSON Schema, and the arguments that reach a Python tool
as the Python types the annotations name."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal, Optional, TypedDict

import pydantic
import pytest

import ptc
from conftest import run


class Unit(enum.Enum):
    C = "celsius"
    F = "fahrenheit"


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


class Filter(TypedDict):
    """A filter."""

    field: str
    value: int | str


class Query(pydantic.BaseModel):
    text: str = pydantic.Field(description="what to look for")
    limit: int = 10


def test_annotations_become_the_parameters_schema() -> None:
    @ptc.tool
    def f(
        name: Annotated[str, "who"],
        unit: Unit,
        at: Point,
        where: list[Filter],
        mode: Literal["fast", "exact"] = "fast",
        tags: Optional[set[str]] = None,
        pair: tuple[int, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> list[Point]:
        return []

    assert f.parameters == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "who"},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "at": {"$ref": "#/$defs/Point"},
            "where": {"type": "array", "items": {"$ref": "#/$defs/Filter"}},
            "mode": {"enum": ["fast", "exact"], "default": "fast"},
            "tags": {
                "anyOf": [{"type": "array", "items": {"type": "string"}, "uniqueItems": True}, {"type": "null"}],
                "default": None,
            },
            "pair": {
                "anyOf": [
                    {
                        "type": "array",
                        "prefixItems": [{"type": "integer"}, {"type": "string"}],
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    {"type": "null"},
                ],
                "default": None,
            },
            "extra": {"anyOf": [{"type": "object"}, {"type": "null"}], "default": None},
        },
        "required": ["name", "unit", "at", "where"],
        "additionalProperties": False,
        "$defs": {
            "Point": {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                "required": ["x"],
                "additionalProperties": False,
            },
            "Filter": {
                "type": "object",
                "properties": {
                    "field": {"type": "string"},
                    "value": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                },
                "required": ["field", "value"],
                "additionalProperties": False,
            },
        },
    }
    assert f.output == {
        "type": "array",
        "items": {"$ref": "#/$defs/Point"},
        "$defs": {"Point": f.parameters["$defs"]["Point"]},
    }


def test_a_type_without_json_schema_is_refused_naming_the_parameter() -> None:
    with pytest.raises(TypeError, match=r"tool `g`, parameter `data`: cannot express <class 'bytes'>"):

        @ptc.tool
        def g(data: bytes) -> None:
            pass

    with pytest.raises(TypeError, match=r"parameter `rest` is variadic positional"):

        @ptc.tool
        def h(*rest: int) -> None:
            pass


def test_python_values_reach_the_tool_and_come_back_as_json() -> None:
    got: list[Any] = []

    @ptc.tool
    def typed(unit: Unit, at: Point, pair: tuple[int, str], tags: set[str], q: Query | None = None) -> Point:
        got.extend([unit, at, pair, tags, q])
        return Point(at.x * 2, at.y)

    @ptc.tool
    async def search(query: Query) -> list[Query]:
        """Searches."""
        return [query, Query(text=query.text.upper(), limit=1)]

    @ptc.tool(parameters={"type": "object", "properties": {"user-id": {"type": "integer"}}, "required": ["user-id"]})
    def raw(arguments: dict[str, Any]) -> int:
        return int(arguments["user-id"]) + 1

    async def main() -> tuple[ptc.Outcome, list[str]]:
        async with ptc.Session(tools=[typed, search, raw]) as session:
            listed = await session.presentation(mode="native")
            outcome = await session.run_code(
                """
                const p = await tools.typed({ unit: "celsius", at: { x: 1.5 }, pair: [1, "a"], tags: ["t"],
                                              q: { text: "hi" } });
                const found = await tools.search({ text: "ptc" });
                const id = await tools["raw"]({ "user-id": 41 });
                try { await tools.search({ text: 5 }); } catch (e) { console.log(e.code); }
                return [p, found, id];
                """
            )
            return outcome, [t.name for t in listed.tools]

    outcome, names = run(main())
    assert names == ["typed", "search", "raw"]
    assert not outcome.is_error, outcome.text
    assert outcome.text == (
        "INVALID_ARGUMENTS\n"
        '[{"x":3,"y":0},[{"text":"ptc","limit":10},{"text":"PTC","limit":1}],42]'
    )
    assert got == [Unit.C, Point(1.5, 0.0), (1, "a"), {"t"}, Query(text="hi")]


def test_the_pydantic_model_is_the_whole_arguments_object() -> None:
    @ptc.tool
    def search(query: Query) -> None:
        pass

    # Without the titles pydantic makes up (issue 41: `/** Text */` says nothing).
    assert search.parameters == {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "what to look for"},
            "limit": {"type": "integer", "default": 10},
        },
        "required": ["text"],
    }


class Task(pydantic.BaseModel):
    """A task."""

    priority_level: str = pydantic.Field("normal", title="Urgency")
    due_date: str = "soon"
    query: Query | None = None


def test_titles_a_model_sets_stay_and_made_up_ones_go() -> None:
    @ptc.tool
    def plan(task: Task, other: Task) -> None:
        pass

    task = plan.parameters["$defs"]["Task"]
    assert "title" not in task
    assert task["description"] == "A task."
    assert task["properties"]["priority_level"]["title"] == "Urgency"
    assert "title" not in task["properties"]["due_date"]
    assert "title" not in plan.parameters["$defs"]["Query"]
    assert all("title" not in p for p in plan.parameters["$defs"]["Query"]["properties"].values())


def test_a_value_that_is_not_json_fails_the_call() -> None:
    @ptc.tool
    def bad() -> Any:
        return {"when": object()}

    async def main() -> ptc.Outcome:
        async with ptc.Session(tools=[bad]) as session:
            return await session.run_code("try { await tools.bad({}) } catch (e) { return e.message }")

    outcome = run(main())
    assert outcome.text == "TypeError: the value of tool `bad`: a value of type `object` is not JSON"
