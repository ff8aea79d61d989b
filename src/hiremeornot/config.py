"""Load and validate the audit configuration against the JSON schema.

The schema (``config.schema.yaml``, package data; ``workflow/schemas/`` links to it) is the one
source of every setting's default: code reads validated, filled settings and repeats none. Each
key of a model's settings carries an ``x-role`` that says what editing it does:

- ``answers``: it can change an answer, so it is part of the response store's key
  (``hiremeornot.asking.backends.model_identity``);
- ``runtime``: it changes how the job runs, never an answer: not in the store's key, but editing
  it re-runs the job;
- ``resource``: it only sizes the job (threads, memory, time, GPUs): editing it re-runs nothing
  (``hiremeornot.plan.step_settings``);
- ``report``: it is said about the model in the reports (a distribution date), never asked:
  editing it re-runs the record and the writers that print it, no model job.
"""

from __future__ import annotations

import copy
import functools
import importlib.resources
import math
import types
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from hiremeornot.errors import InputError

SCHEMA_FILE = "config.schema.yaml"
ROLES = ("answers", "runtime", "resource", "report")
CONSTRAINED, FREE = "constrained", "free"  # how a step's questions are asked (answers_mode)


@functools.cache
def _schema() -> dict:
    """The parsed schema, read once (never modified: validation only reads it), by libyaml's
    loader where PyYAML has it (a tenth of the pure-Python loader's time, which every job and
    dry run would pay)."""
    text = importlib.resources.files("hiremeornot").joinpath(SCHEMA_FILE).read_text()
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _model_schema() -> dict:
    return _schema()["properties"]["models"]["additionalProperties"]


def schema() -> dict:
    """The configuration's JSON schema (a copy)."""
    return copy.deepcopy(_schema())


@functools.cache
def model_roles() -> Mapping[str, str]:
    """Each model settings key's ``x-role``; raise if a key has none, or an unknown one."""
    roles = {key: spec.get("x-role") for key, spec in _model_schema()["properties"].items()}
    unmarked = sorted(key for key, role in roles.items() if role not in ROLES)
    if unmarked:
        raise RuntimeError(
            f"{SCHEMA_FILE}: models.<name>.{unmarked[0]} needs an x-role, one of {ROLES}"
        )
    return types.MappingProxyType(roles)


@functools.cache
def model_keys(role: str) -> frozenset[str]:
    """The model settings keys whose ``x-role`` is ``role`` (one of ROLES)."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; known: {ROLES}")
    return frozenset(key for key, marked in model_roles().items() if marked == role)


@functools.cache
def _with_defaults(validator_class: type) -> type:
    """A validator class that fills each missing property with its schema default.

    A property marked ``x-backend`` (one backend's name, or a list) is filled only in a model
    whose backend is named there; ``x-default-by-backend`` overrides the default per backend.
    """
    validate_properties = validator_class.VALIDATORS["properties"]

    def fill_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            backend = instance.get("backend")
            for name, subschema in properties.items():
                default = subschema.get("x-default-by-backend", {}).get(
                    backend, subschema.get("default", _MISSING)
                )
                if (
                    name not in instance
                    and default is not _MISSING
                    and _applies(subschema, backend)
                ):
                    instance[name] = copy.deepcopy(default)
        yield from validate_properties(validator, properties, instance, schema)

    # a whole number written as a float (3.0) is no integer: range(3.0) and the seeds refuse it
    strict = validator_class.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool)
    )
    return jsonschema.validators.extend(
        validator_class, {"properties": fill_defaults}, type_checker=strict
    )


_MISSING = object()


def _backends(subschema: dict) -> list[str] | None:
    """The backends a property belongs to (its ``x-backend``); None for every one."""
    marked = subschema.get("x-backend")
    return [marked] if isinstance(marked, str) else marked


def _applies(subschema: dict, backend: str | None) -> bool:
    """Whether a property belongs in an object of ``backend`` (always, outside models)."""
    marked = _backends(subschema)
    return marked is None or backend in marked


def backend_of(key: str) -> list[str] | None:
    """The backends a model settings key belongs to (its ``x-backend``); None for every one."""
    return _backends(_model_schema()["properties"].get(key, {}))


def _validate(instance: Any, schema: dict, source: str) -> None:
    """Fill defaults into ``instance`` in place; raise InputError naming the first bad key (with
    the schema's ``x-message`` where the failing subschema has one)."""
    _refuse_unreadable(instance, source, ())
    validator = _with_defaults(jsonschema.Draft202012Validator)(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise InputError(f"{source}: invalid value at '{key}': {_message(error)}")


def _message(error: jsonschema.ValidationError) -> str:
    """What is wrong with a value: the schema's ``x-message`` where it has one (without the
    value where the schema marks it ``x-secret``: it may be a key), each alternative of a
    ``oneOf`` ("is not valid under any of the given schemas" says none), and whether the value
    came as text."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    if "x-message" in schema:
        shown = "the value" if schema.get("x-secret") else repr(error.instance)
        return f"{shown} {schema['x-message']}"
    if error.validator in ("oneOf", "anyOf") and error.context:
        reasons = sorted(
            {
                (f"at {'.'.join(map(str, sub.relative_path))}: " if sub.relative_path else "")
                + sub.message
                for sub in error.context
            }
        )
        message = f"{error.instance!r} is none of what it may be: {'; '.join(reasons)}"
    else:
        message = error.message
    return message + _text_hint(error)


# JSON schema's types as the Python values YAML reads them as.
_TYPES = {"integer": int, "number": (int, float), "boolean": bool, "array": list, "object": dict}


def _text_hint(error: jsonschema.ValidationError) -> str:
    """Where a value of another type came as text that reads as one (Snakemake's --config reads
    every value nested in {...} as text), say so; ``oneOf`` alternatives count too."""
    typed = [e for e in (error, *error.context) if e.validator == "type"]
    if not typed or not isinstance(error.instance, str):
        return ""
    expected = []
    for alternative in typed:
        value = alternative.validator_value
        expected += value if isinstance(value, list) else [value]
    try:
        parsed = yaml.safe_load(error.instance)
    except yaml.YAMLError:
        return ""
    if not any(isinstance(parsed, _TYPES[t]) for t in expected if t in _TYPES):
        return ""
    return (
        f" (it is the text {error.instance!r}: remove its quotes; Snakemake's --config reads a "
        "value nested in {...} as text, so give such a setting in a config file)"
    )


def _refuse_unreadable(value: Any, source: str, path: tuple) -> None:
    """Raise InputError at the first number that is not finite (YAML's .nan, .inf), which the
    schema's bounds let through (nan compares false with every bound), and at a key that is not
    text (YAML reads an unquoted yes, no, on or off as true or false)."""
    key = ".".join(str(p) for p in path) or "(top level)"
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{source}: invalid value at '{key}': {value!r} is not a finite number")
    if isinstance(value, dict):
        for name, item in value.items():
            if not isinstance(name, str):
                raise InputError(
                    f"{source}: at '{key}': the key {name!r} is not text: YAML reads an unquoted "
                    "yes, no, on, off, true or false as a truth value and digits as a number; "
                    "quote it ('yes':)"
                )
            _refuse_unreadable(item, source, (*path, name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_unreadable(item, source, (*path, index))


def validate_config(config: dict, source: str = "config") -> dict:
    """Fill defaults into ``config`` in place and raise InputError naming the first bad key."""
    _validate(config, _schema(), source)
    for name, settings in config.get("models", {}).items():
        _validate_classifier(settings, f"{source}: models.{name}.free_classifier")
    return config


def _validate_classifier(settings: dict, source: str) -> None:
    """Fill the defaults of a model's ``free_classifier`` (a model's settings) in place, and
    raise InputError naming its first bad key."""
    if settings.get("free_classifier") is not None:
        _validate(settings["free_classifier"], _model_schema(), source)


def marked_values(config: Mapping[str, Any], marker: str) -> Iterator[tuple[str, Any, Any]]:
    """``(key, value, mark)`` of every value of a filled ``config`` whose schema carries
    ``marker`` (e.g. ``x-path``), the key written with dots (``models.m.venv``)."""

    def walk(value: Any, node: dict, path: tuple) -> Iterator[tuple[str, Any, Any]]:
        if marker in node:
            yield ".".join(map(str, path)), value, node[marker]
        if not isinstance(value, dict):
            return
        properties, others = node.get("properties", {}), node.get("additionalProperties")
        for name, item in value.items():
            child = properties.get(name, others if isinstance(others, dict) else None)
            if child is not None:
                yield from walk(item, child, (*path, name))

    yield from walk(config, _schema(), ())


def model_settings(settings: Mapping[str, Any], source: str = "model settings") -> dict:
    """One model's settings, validated, with the schema's defaults filled in (a new dict).

    For code and tests that build a backend without a whole config:
    ``model_settings({"backend": "transformers", "model": "x/y"})``.
    """
    filled = copy.deepcopy(dict(settings))
    _validate(filled, _model_schema(), source)
    _validate_classifier(filled, f"{source}: free_classifier")
    return filled


class _StrictLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (YAML keeps the last and
    silently drops the first block)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise InputError(
                    f"{self.name}:{line}: the key {key!r} is given twice (lines {seen[key]} and "
                    f"{line}); YAML would keep the second and drop the first"
                )
            seen[key] = line
        return super().construct_mapping(node, deep)


def answers_mode(model_settings: Mapping[str, Any], step: str) -> str:
    """How ``step``'s questions are asked of a model, by its validated settings: CONSTRAINED or
    FREE (its answers_mode, one for every step or one per step)."""
    mode = model_settings["answers_mode"]
    return mode if isinstance(mode, str) else mode.get(step, CONSTRAINED)


def read_yaml(path: str | Path) -> Any:
    """A YAML file's content, read strictly (no key twice); InputError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"config file not found: {path}")
    try:
        loader = _StrictLoader(path.read_text())
        loader.name = str(path)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not valid YAML: {exc}") from exc


def load_config(path: str | Path) -> dict:
    """Read a YAML config file strictly, validate it and fill its defaults."""
    path = Path(path)
    config = read_yaml(path) or {}
    if not isinstance(config, dict):
        raise InputError(f"{path}: the top level must be a mapping of keys")
    return validate_config(config, source=str(path))


def models_merged_in(models: Mapping[str, Any], own: Sequence[str | Path]) -> str | None:
    """The warning for a run whose config files on the command line (``own``) list models and
    that audits others as well (Snakemake merges the workflow's config.yaml into them); None
    where the run audits just theirs."""
    if not isinstance(models, Mapping):
        return None  # the config check names what is wrong with it
    listed = set()
    for path in own:
        content = read_yaml(path) or {}
        if isinstance(content, dict) and isinstance(content.get("models"), dict):
            listed |= set(content["models"])
    extra = sorted(set(models) - listed)
    if not listed or not extra:
        return None
    return (
        f"the run also audits {', '.join(extra)}, which {', '.join(map(str, own))} does not list: "
        "Snakemake merged them in from the workflow's config.yaml. To audit only your models, "
        "add --replace-workflow-config (your file then holds every setting it needs)."
    )
