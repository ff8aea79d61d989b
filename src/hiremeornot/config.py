"""Load and validate the audit configuration against the JSON schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import yaml

from hiremeornot.errors import InputError

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"


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
                    instance[name] = _copy(default)
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": fill_defaults})


_MISSING = object()


def _applies(subschema: dict, backend: str | None) -> bool:
    """Whether a property belongs in an object of ``backend`` (always, outside models)."""
    marked = subschema.get("x-backend")
    if marked is None:
        return True
    return backend in ([marked] if isinstance(marked, str) else marked)


def _copy(value: Any) -> Any:
    return yaml.safe_load(yaml.safe_dump(value))


def validate_config(config: dict, source: str = "config") -> dict:
    """Fill defaults into ``config`` in place and raise InputError naming the first bad key."""
    schema = yaml.safe_load(SCHEMA_PATH.read_text())
    validator = _with_defaults(jsonschema.Draft202012Validator)(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise InputError(f"{source}: invalid value at '{key}': {error.message}")
    return config


def load_config(path: str | Path) -> dict:
    """Read a YAML config file, validate it and fill its defaults."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"config file not found: {path}")
    try:
        config = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(config, dict):
        raise InputError(f"{path}: the top level must be a mapping of keys")
    return validate_config(config, source=str(path))
