"""`template.yaml` parsed, never restated.

The loader turns CloudFormation's short tags (`!Ref`, `!GetAtt`, `!Sub`, ...) into their long
forms (`{"Ref": ...}`, `{"Fn::GetAtt": [...]}`), so the rest of `infra/` reads one shape. The
accessors expose what the local stack needs: resources by type, parameters with their defaults
and bounds, the Globals environment, and each function's code, handler and event sources.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from infra import TEMPLATE_PATH


class TemplateError(ValueError):
    """The template (or a value given for one of its parameters) cannot be used locally."""


class CfnLoader(yaml.SafeLoader):
    """A safe YAML loader that also understands CloudFormation's short-form tags."""


def _construct_short_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    elif isinstance(node, yaml.MappingNode):
        value = loader.construct_mapping(node, deep=True)
    else:  # pragma: no cover - PyYAML has no other node kinds
        raise TemplateError(f"unsupported node for !{suffix}")
    if suffix in ("Ref", "Condition"):
        return {suffix: value}
    if suffix == "GetAtt" and isinstance(value, str):
        logical_id, _, attribute = value.partition(".")
        return {"Fn::GetAtt": [logical_id, attribute]}
    return {f"Fn::{suffix}": value}


CfnLoader.add_multi_constructor("!", _construct_short_tag)


def load_yaml(text: str) -> dict[str, Any]:
    """Parses CloudFormation YAML text into plain dicts and lists with long-form intrinsics."""
    body = yaml.load(text, Loader=CfnLoader)  # noqa: S506 - CfnLoader is a SafeLoader
    if not isinstance(body, dict):
        raise TemplateError("a template must be a mapping at the top level")
    return body


def scalar_str(value: Any) -> str:
    """CloudFormation's string form of a scalar: parameters and env values are strings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Parameter:
    """One template parameter; `validate` applies the bounds CloudFormation checks on deploy."""

    name: str
    type: str
    default: str | None
    allowed_values: tuple[str, ...] = ()
    min_value: float | None = None
    max_value: float | None = None
    allowed_pattern: str | None = None

    def validate(self, value: str, source: str) -> None:
        where = f"{self.name} (from {source})"
        if self.allowed_values and value not in self.allowed_values:
            raise TemplateError(
                f"{where} must be one of {list(self.allowed_values)}, not {value!r}"
            )
        if self.allowed_pattern is not None and not re.fullmatch(self.allowed_pattern, value):
            raise TemplateError(f"{where} must match {self.allowed_pattern}, not {value!r}")
        if self.type == "Number":
            try:
                number = float(value)
            except ValueError:
                raise TemplateError(f"{where} must be a number, not {value!r}") from None
            if self.min_value is not None and number < self.min_value:
                raise TemplateError(f"{where} must be at least {self.min_value:g}, not {value}")
            if self.max_value is not None and number > self.max_value:
                raise TemplateError(f"{where} must be at most {self.max_value:g}, not {value}")


@dataclass(frozen=True)
class Resource:
    logical_id: str
    type: str
    properties: Mapping[str, Any]


@dataclass(frozen=True)
class EventSource:
    """One entry of a function's `Events`: `type` is SAM's (`DynamoDB`, `SQS`, `Schedule`...)."""

    name: str
    type: str
    properties: Mapping[str, Any]


@dataclass(frozen=True)
class FunctionSpec:
    """An `AWS::Serverless::Function` with Globals applied to its scalar settings."""

    logical_id: str
    code_uri: str
    handler: str
    memory_size: int
    timeout: int
    environment: Mapping[str, Any]
    events: Mapping[str, EventSource]

    def handler_location(self, root: Path) -> tuple[Path, str]:
        """The handler's file and attribute, as Lambda's Python runtime would find them."""
        module, _, attribute = self.handler.rpartition(".")
        if not module or not attribute:
            raise TemplateError(
                f"{self.logical_id}: Handler {self.handler!r} is not module.function"
            )
        return root / self.code_uri / (module.replace(".", "/") + ".py"), attribute


class Template:
    """Read-only view of a parsed SAM template."""

    def __init__(self, body: Mapping[str, Any], path: Path | None = None) -> None:
        self.body = body
        self.path = path
        self.root = path.parent if path is not None else Path.cwd()

    @classmethod
    def load(cls, path: Path = TEMPLATE_PATH) -> Template:
        return cls(load_yaml(path.read_text(encoding="utf-8")), path)

    @property
    def parameters(self) -> dict[str, Parameter]:
        result = {}
        for name, spec in (self.body.get("Parameters") or {}).items():
            default = spec.get("Default")
            result[name] = Parameter(
                name=name,
                type=str(spec.get("Type", "String")),
                default=None if default is None else scalar_str(default),
                allowed_values=tuple(scalar_str(v) for v in spec.get("AllowedValues", ())),
                min_value=_optional_float(spec.get("MinValue")),
                max_value=_optional_float(spec.get("MaxValue")),
                allowed_pattern=spec.get("AllowedPattern"),
            )
        return result

    @property
    def conditions(self) -> Mapping[str, Any]:
        return self.body.get("Conditions") or {}

    @property
    def resources(self) -> dict[str, Resource]:
        return {
            logical_id: Resource(logical_id, str(spec["Type"]), spec.get("Properties") or {})
            for logical_id, spec in (self.body.get("Resources") or {}).items()
        }

    def resources_of_type(self, resource_type: str) -> dict[str, Resource]:
        return {k: r for k, r in self.resources.items() if r.type == resource_type}

    @property
    def globals_function(self) -> Mapping[str, Any]:
        return (self.body.get("Globals") or {}).get("Function") or {}

    @property
    def globals_environment(self) -> dict[str, Any]:
        """`Globals.Function.Environment.Variables`, intrinsics unresolved."""
        return dict((self.globals_function.get("Environment") or {}).get("Variables") or {})

    @property
    def functions(self) -> dict[str, FunctionSpec]:
        result = {}
        defaults = self.globals_function
        for logical_id, resource in self.resources_of_type("AWS::Serverless::Function").items():
            props = resource.properties
            events = {
                name: EventSource(name, str(spec["Type"]), spec.get("Properties") or {})
                for name, spec in (props.get("Events") or {}).items()
            }
            result[logical_id] = FunctionSpec(
                logical_id=logical_id,
                code_uri=str(props.get("CodeUri", defaults.get("CodeUri", "."))),
                handler=str(props.get("Handler", defaults.get("Handler", ""))),
                memory_size=int(props.get("MemorySize", defaults.get("MemorySize", 128))),
                timeout=int(props.get("Timeout", defaults.get("Timeout", 3))),
                environment=dict((props.get("Environment") or {}).get("Variables") or {}),
                events=events,
            )
        return result

    def environment_bindings(self) -> dict[str, list[Any]]:
        """Every environment variable name with the (unresolved) values the template gives it.

        Globals first, then each function's own variables; one process runs all functions
        locally, so a name bound to two different values is worth a warning by the caller.
        """
        bindings: dict[str, list[Any]] = {}
        for name, value in self.globals_environment.items():
            bindings.setdefault(name, []).append(value)
        for function in self.functions.values():
            for name, value in function.environment.items():
                bindings.setdefault(name, []).append(value)
        return bindings


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)
