"""Evaluates CloudFormation intrinsic functions against locally provisioned resources.

Only what a local stack can know is resolvable: parameters, conditions, pseudo parameters,
and the names, ARNs and URLs of the resources it created. Anything else (a layer's ARN, an
API id) raises, so a template change that needs more support fails loudly instead of
producing a wrong value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from infra.template_model import TemplateError, scalar_str

_NO_VALUE = object()
_SUB_PATTERN = re.compile(r"\$\{([^}]*)\}")


class Intrinsics:
    """Resolves `Ref`, `Fn::GetAtt`, `Fn::Sub`, `Fn::If` and friends to plain values."""

    def __init__(
        self,
        *,
        parameters: Mapping[str, str],
        conditions: Mapping[str, Any],
        refs: Mapping[str, str],
        attributes: Mapping[tuple[str, str], str],
        pseudo: Mapping[str, str],
    ) -> None:
        self.parameters = parameters
        self.conditions = conditions
        self.refs = refs
        self.attributes = attributes
        self.pseudo = pseudo
        self._condition_cache: dict[str, bool] = {}

    def resolve(self, value: Any) -> Any:
        """Resolves every intrinsic inside `value`; `AWS::NoValue` removes its key or item."""
        result = self._resolve(value)
        return None if result is _NO_VALUE else result

    def condition(self, name: str) -> bool:
        if name not in self._condition_cache:
            if name not in self.conditions:
                raise TemplateError(f"unknown condition {name!r}")
            self._condition_cache[name] = self._truth(self.conditions[name])
        return self._condition_cache[name]

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            items = [self._resolve(item) for item in value]
            return [item for item in items if item is not _NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, argument),) = value.items()
            if key == "Ref":
                return self._ref(str(argument))
            if key == "Condition" and isinstance(argument, str):
                return self.condition(argument)
            if key.startswith("Fn::"):
                return self._function(key[4:], argument)
        resolved = {key: self._resolve(item) for key, item in value.items()}
        return {key: item for key, item in resolved.items() if item is not _NO_VALUE}

    def _ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return _NO_VALUE
        for source in (self.parameters, self.refs, self.pseudo):
            if name in source:
                return source[name]
        raise TemplateError(f"cannot resolve Ref {name!r} locally")

    def _get_att(self, logical_id: str, attribute: str) -> str:
        try:
            return self.attributes[(logical_id, attribute)]
        except KeyError:
            raise TemplateError(f"cannot resolve GetAtt {logical_id}.{attribute} locally") from None

    def _function(self, name: str, argument: Any) -> Any:
        if name == "GetAtt":
            if isinstance(argument, str):
                argument = argument.split(".", 1)
            logical_id, attribute = (scalar_str(self._resolve(a)) for a in argument)
            return self._get_att(logical_id, attribute)
        if name == "Sub":
            return self._sub(argument)
        if name == "If":
            condition, when_true, when_false = argument
            return self._resolve(when_true if self.condition(condition) else when_false)
        if name in ("Not", "Equals", "And", "Or"):
            return self._truth({f"Fn::{name}": argument})
        if name == "Join":
            separator, items = argument
            return scalar_str(separator).join(scalar_str(i) for i in self._resolve(items))
        if name == "Select":
            index, items = argument
            return self._resolve(items)[int(self._resolve(index))]
        if name == "Split":
            separator, text = argument
            return scalar_str(self._resolve(text)).split(scalar_str(separator))
        raise TemplateError(f"intrinsic Fn::{name} is not supported by the local stack")

    def _truth(self, expression: Any) -> bool:
        if isinstance(expression, dict) and len(expression) == 1:
            ((key, argument),) = expression.items()
            if key == "Condition":
                return self.condition(str(argument))
            if key == "Fn::Not":
                return not self._truth(argument[0])
            if key == "Fn::And":
                return all(self._truth(a) for a in argument)
            if key == "Fn::Or":
                return any(self._truth(a) for a in argument)
            if key == "Fn::Equals":
                left, right = (scalar_str(self._resolve(a)) for a in argument)
                return left == right
        resolved = self._resolve(expression)
        if isinstance(resolved, bool):
            return resolved
        raise TemplateError(f"not a condition: {expression!r}")

    def _sub(self, argument: Any) -> str:
        if isinstance(argument, list):
            text, variables = argument[0], self._resolve(argument[1])
        else:
            text, variables = argument, {}

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return scalar_str(variables[name])
            if "." in name and not name.startswith("AWS::"):
                logical_id, attribute = name.split(".", 1)
                return self._get_att(logical_id, attribute)
            return scalar_str(self._ref(name))

        return _SUB_PATTERN.sub(replace, str(text))
