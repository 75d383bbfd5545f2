"""Python annotations as JSON Schema, JSON arguments as Python values, and
Python values as JSON.

The mapping (docs/python.md): ``str`` string, ``int`` integer, ``float``
number, ``bool`` boolean, ``None`` null, ``list[T]``/``Sequence[T]``/
``set[T]`` array, ``tuple[A, B]`` a fixed array, ``dict[str, T]`` object,
``X | Y``/``Optional[X]`` anyOf, ``Literal[...]`` enum, an ``Enum`` class
its values, a ``TypedDict`` or dataclass an object, a pydantic model its
own ``model_json_schema()``; ``Annotated[T, "text"]`` adds a description;
``Any`` or no annotation accepts anything. Named types (dataclasses,
TypedDicts, pydantic models) go into ``$defs`` and are referred to with
``$ref``.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import json
import math
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Union

JsonSchema = dict[str, Any]


class _Defs:
    """The ``$defs`` of the schema being built."""

    def __init__(self) -> None:
        self.defs: dict[str, JsonSchema] = {}
        self._types: dict[str, Any] = {}

    def add(self, name: str, schema: JsonSchema) -> JsonSchema:
        """A definition taken as is (a pydantic model's own ``$defs``)."""
        existing = self.defs.get(name)
        if existing is not None and existing != schema:
            raise TypeError(f"two different types are both named `{name}`; rename one")
        self.defs[name] = schema
        return {"$ref": f"#/$defs/{name}"}

    def ref(self, tp: Any, build: Callable[[], JsonSchema]) -> JsonSchema:
        """A reference to ``tp``'s definition, built once (a type that refers
        to itself finds its own name already taken)."""
        name = tp.__name__
        ref = {"$ref": f"#/$defs/{name}"}
        known = self._types.get(name)
        if known is tp:
            return ref
        if known is not None:
            raise TypeError(f"two different types are both named `{name}`; rename one")
        self._types[name] = tp
        existing = self.defs.get(name)  # from a pydantic model's own $defs
        self.defs[name] = {}
        built = build()
        if existing is not None and existing != built:
            raise TypeError(f"two different types are both named `{name}`; rename one")
        self.defs[name] = built
        return ref


def _is_pydantic_model(tp: Any) -> bool:
    return (
        isinstance(tp, type)
        and callable(getattr(tp, "model_json_schema", None))
        and callable(getattr(tp, "model_validate", None))
    )


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def _strip_annotated(tp: Any) -> tuple[Any, str | None]:
    if typing.get_origin(tp) is typing.Annotated:
        base, *meta = typing.get_args(tp)
        texts = [m for m in meta if isinstance(m, str)]
        return base, (" ".join(texts) if texts else None)
    return tp, None


def schema_of(tp: Any, defs: _Defs, where: str) -> JsonSchema:
    """The JSON Schema of one annotation; ``where`` names it in errors."""
    base, description = _strip_annotated(tp)
    schema = _schema_of(base, defs, where)
    if description is not None:
        schema = {**schema, "description": description}
    return schema


def _schema_of(tp: Any, defs: _Defs, where: str) -> JsonSchema:
    if tp is Any or tp is object or tp is inspect.Parameter.empty:
        return {}
    if tp is None or tp is type(None):
        return {"type": "null"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if tp is str:
        return {"type": "string"}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [_to_json(m.value, where) for m in tp]}
    if _is_pydantic_model(tp):
        return defs.ref(tp, lambda: _pydantic_schema(tp, defs))
    if _is_typeddict(tp):
        return defs.ref(tp, lambda: _typeddict_schema(tp, defs, where))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return defs.ref(tp, lambda: _dataclass_schema(tp, defs, where))

    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Literal:
        values = [_to_json(a, where) for a in args]
        return {"const": values[0]} if len(values) == 1 else {"enum": values}
    if origin is Union or origin is types.UnionType:
        arms = [schema_of(a, defs, where) for a in args]
        return {"anyOf": arms}
    if tp in (list, set, frozenset, tuple) or origin in (
        list,
        set,
        frozenset,
        collections.abc.Sequence,
        collections.abc.Set,
        collections.abc.Iterable,
    ):
        items = schema_of(args[0], defs, f"{where}[]") if args else {}
        array: JsonSchema = {"type": "array"}
        if items:
            array["items"] = items
        if origin in (set, frozenset, collections.abc.Set):
            array["uniqueItems"] = True
        return array
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": schema_of(args[0], defs, f"{where}[]")}
        if args == ((),):
            return {"type": "array", "maxItems": 0}
        return {
            "type": "array",
            "prefixItems": [schema_of(a, defs, f"{where}[{i}]") for i, a in enumerate(args)],
            "minItems": len(args),
            "maxItems": len(args),
        }
    if tp in (dict, collections.abc.Mapping) or origin in (dict, collections.abc.Mapping):
        if args and args[0] is not str:
            raise TypeError(f"{where}: a JSON object's keys are strings, not {args[0]!r}")
        values_schema = schema_of(args[1], defs, f"{where}{{}}") if args else {}
        obj: JsonSchema = {"type": "object"}
        if values_schema:
            obj["additionalProperties"] = values_schema
        return obj
    raise TypeError(
        f"{where}: cannot express {tp!r} as JSON Schema; annotate it with a JSON type "
        "(str, int, float, bool, list, dict, a dataclass, a TypedDict, a pydantic model) "
        "or give the tool parameters= explicitly"
    )


def _pydantic_schema(tp: Any, defs: _Defs) -> JsonSchema:
    model_schema = _model_schema(tp)
    for name, sub in model_schema.pop("$defs", {}).items():
        defs.add(name, sub)
    return model_schema


def _model_schema(model: Any) -> JsonSchema:
    """A pydantic model's JSON Schema without the titles pydantic makes up
    (a field's name title-cased, a model's class name), which would reach
    the model as documentation that says nothing (``/** Priority */``);
    titles a field or model sets itself are kept."""
    schema: JsonSchema = model.model_json_schema(ref_template="#/$defs/{model}")
    _drop_auto_titles(schema, model.__name__)
    for name, sub in schema.get("$defs", {}).items():
        _drop_auto_titles(sub, name)
    return schema


def _drop_auto_titles(schema: Any, model_name: str | None = None) -> None:
    if not isinstance(schema, dict):
        return
    if model_name is not None and schema.get("title") == model_name:
        del schema["title"]
    for field, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, dict) and sub.get("title") == field.replace("_", " ").title():
            del sub["title"]
        _drop_auto_titles(sub)
    for key in ("items", "additionalProperties"):
        _drop_auto_titles(schema.get(key))
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for sub in schema.get(key) or []:
            _drop_auto_titles(sub)


def _typeddict_schema(tp: Any, defs: _Defs, where: str) -> JsonSchema:
    hints = typing.get_type_hints(tp, include_extras=True)
    required: frozenset[str] = getattr(tp, "__required_keys__", frozenset(hints))
    props = {k: schema_of(v, defs, f"{where}.{k}") for k, v in hints.items()}
    schema: JsonSchema = {"type": "object", "properties": props, "additionalProperties": False}
    req = [k for k in hints if k in required]
    if req:
        schema["required"] = req
    return schema


def _dataclass_schema(tp: Any, defs: _Defs, where: str) -> JsonSchema:
    hints = typing.get_type_hints(tp, include_extras=True)
    props: dict[str, JsonSchema] = {}
    req: list[str] = []
    for f in dataclasses.fields(tp):
        props[f.name] = schema_of(hints.get(f.name, Any), defs, f"{where}.{f.name}")
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            req.append(f.name)
    schema: JsonSchema = {"type": "object", "properties": props, "additionalProperties": False}
    if req:
        schema["required"] = req
    return schema


@dataclasses.dataclass(frozen=True)
class Signature:
    """A function's parameters as a JSON Schema, and how to call it with
    a JSON arguments object."""

    parameters: JsonSchema
    output: JsonSchema | None
    call: Callable[[Mapping[str, Any]], tuple[list[Any], dict[str, Any]]]
    returns: Any = None
    """The return annotation, as written."""


def signature_of(fn: Callable[..., Any], name: str) -> Signature:
    """The parameters schema and the calling convention of ``fn``.

    A lone parameter annotated with a pydantic model takes the whole
    arguments object: the model's schema is the tool's parameters.
    """
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as error:  # a forward reference that does not resolve
        raise TypeError(f"tool `{name}`: its annotations cannot be read: {error}") from error
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise TypeError(
                f"tool `{name}`: parameter `{p.name}` is {p.kind.description}; "
                "a tool's parameters are named (or give parameters= explicitly)"
            )
    returns = hints.get("return", inspect.Parameter.empty)
    output = _output_schema(returns, name)

    if len(params) == 1 and _is_pydantic_model(_strip_annotated(hints.get(params[0].name))[0]):
        model: Any = _strip_annotated(hints[params[0].name])[0]
        schema = _model_schema(model)

        def call_model(arguments: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
            return [model.model_validate(dict(arguments))], {}

        return Signature(schema, output, call_model, returns)

    defs = _Defs()
    properties: dict[str, JsonSchema] = {}
    required: list[str] = []
    converters: dict[str, Any] = {}
    for p in params:
        tp = hints.get(p.name, inspect.Parameter.empty)
        prop = schema_of(tp, defs, f"tool `{name}`, parameter `{p.name}`")
        if p.default is p.empty:
            required.append(p.name)
        else:
            try:
                prop = {**prop, "default": _to_json(p.default, p.name)}
            except TypeError:
                pass  # a default JSON cannot say (a sentinel) is left unsaid
        properties[p.name] = prop
        converters[p.name] = tp
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    if defs.defs:
        schema["$defs"] = defs.defs

    def call_keywords(arguments: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        return [], {k: from_json(v, converters.get(k, Any)) for k, v in arguments.items()}

    return Signature(schema, output, call_keywords, returns)


def _output_schema(tp: Any, name: str) -> JsonSchema | None:
    """The output schema of a return annotation, or None when there is none
    or it has no JSON Schema (an awaitable's result is its annotation)."""
    if tp is inspect.Parameter.empty or tp is Any:
        return None
    defs = _Defs()
    try:
        schema = schema_of(tp, defs, f"tool `{name}`, return value")
    except TypeError:
        return None
    if not schema:
        return None
    if defs.defs:
        schema = {**schema, "$defs": defs.defs}
    return schema


def from_json(value: Any, tp: Any) -> Any:
    """A JSON value (already valid against ``tp``'s schema) as ``tp``:
    models, dataclasses, enums, tuples and sets built, the rest as is."""
    tp, _ = _strip_annotated(tp)
    if value is None:
        return None
    if _is_pydantic_model(tp):
        return tp.model_validate(value)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp) and isinstance(value, dict):
        hints = typing.get_type_hints(tp)
        return tp(**{k: from_json(v, hints.get(k, Any)) for k, v in value.items()})
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(value)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Union or origin is types.UnionType:
        arms = [a for a in args if a is not type(None)]
        return from_json(value, arms[0]) if len(arms) == 1 else value
    if isinstance(value, list):
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            return tuple(from_json(v, a) for v, a in zip(value, args, strict=False))
        item = args[0] if args else Any
        items = [from_json(v, item) for v in value]
        if origin in (set, frozenset) or tp in (set, frozenset):
            return (frozenset if frozenset in (origin, tp) else set)(items)
        if origin is tuple or tp is tuple:
            return tuple(items)
        return items
    if isinstance(value, dict) and origin in (dict, collections.abc.Mapping) and len(args) == 2:
        return {k: from_json(v, args[1]) for k, v in value.items()}
    return value


def _to_json(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"{where}: {value} is not a JSON number")
        return value
    if isinstance(value, enum.Enum):
        return _to_json(value.value, where)
    if _is_pydantic_model(type(value)):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_json(getattr(value, f.name), where) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: a JSON object's keys are strings, got {k!r}")
            out[k] = _to_json(v, where)
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_to_json(v, where) for v in value]
    raise TypeError(f"{where}: a value of type `{type(value).__name__}` is not JSON")


def to_json(value: Any, where: str) -> Any:
    """A Python value as JSON data: models dumped, dataclasses as objects,
    enums as their values, tuples and sets as arrays.

    Raises:
        TypeError: the value (or a part of it) has no JSON form.
    """
    data = _to_json(value, where)
    json.dumps(data, allow_nan=False)  # the last word: what the wire takes
    return data
