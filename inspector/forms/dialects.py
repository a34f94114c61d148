"""JSON Schema dialects: which draft a schema's ``$schema`` names.

MCP (SEP-2106, 2025-11-25 "JSON Schema Usage"): a schema without ``$schema``
is JSON Schema 2020-12.  We also support 2019-09, draft-07, draft-06 and
draft-04.  An unknown ``$schema`` is validated as 2020-12 and reported by
`check_schema`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema.protocols import Validator

__all__ = ["DEFAULT_DIALECT", "Dialect", "dialect_of"]


@dataclass(frozen=True, slots=True)
class Dialect:
    """A JSON Schema draft: its name, its meta-schema URI and jsonschema's validator class."""

    name: str
    uri: str
    validator_class: type[Validator]
    known: bool = True


_DIALECTS = [
    Dialect("2020-12", "https://json-schema.org/draft/2020-12/schema", jsonschema.Draft202012Validator),
    Dialect("2019-09", "https://json-schema.org/draft/2019-09/schema", jsonschema.Draft201909Validator),
    Dialect("draft-07", "http://json-schema.org/draft-07/schema", jsonschema.Draft7Validator),
    Dialect("draft-06", "http://json-schema.org/draft-06/schema", jsonschema.Draft6Validator),
    Dialect("draft-04", "http://json-schema.org/draft-04/schema", jsonschema.Draft4Validator),
]

DEFAULT_DIALECT = _DIALECTS[0]


def _normalise(uri: str) -> str:
    uri = uri.strip().rstrip("#")
    if uri.startswith("https://"):
        uri = "http://" + uri[len("https://") :]
    return uri


_BY_URI = {_normalise(d.uri): d for d in _DIALECTS}


def dialect_of(schema: Any) -> Dialect:
    """The dialect named by ``schema["$schema"]``; 2020-12 when absent.

    An unrecognised ``$schema`` gives a 2020-12 dialect with ``known=False``.
    URIs match with or without a trailing ``#`` and over http or https.
    """
    if not isinstance(schema, dict) or "$schema" not in schema:
        return DEFAULT_DIALECT
    uri = schema["$schema"]
    if isinstance(uri, str):
        found = _BY_URI.get(_normalise(uri))
        if found is not None:
            return found
    return Dialect(DEFAULT_DIALECT.name, str(uri), DEFAULT_DIALECT.validator_class, known=False)
