"""A tool's schemas against their metaschema, and a tool's result against its outputSchema.

Checking a schema against its metaschema is the costly part of a tool, so
the findings are cached per distinct schema: a list of 100,000 tools that
share a few schemas checks a few.  `check_structured_content` also serves
`inspector call` and the collections' expectations.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from inspector.core.checks.message_checker import MAX_ISSUES, join_path
from inspector.core.checks.problems import Problem
from inspector.core.checks.rules import RULES
from inspector.core.protocol.versions import at_least
from inspector.forms.paths import Path, format_path
from inspector.forms.values import short_json

__all__ = ["check_structured_content", "check_tool_schemas"]

_SCHEMA_CACHE: OrderedDict[tuple[str, bool], list[tuple[Path, str, str]]] = OrderedDict()
_SCHEMA_CACHE_SIZE = 1024
_SCHEMA_LOCK = threading.Lock()  # the TUI may validate in a worker thread
_DRAFT7 = "http://json-schema.org/draft-07/schema#"


def _schema_violations(schema: Any, lenient_dialect: bool) -> list[tuple[Path, str, str]]:
    """(path, message, keyword) of metaschema violations, cached per distinct schema."""
    from inspector.forms import check_schema

    try:
        key = (json.dumps(schema, sort_keys=True, ensure_ascii=False), lenient_dialect)
    except (TypeError, ValueError):
        key = (repr(schema), lenient_dialect)
    with _SCHEMA_LOCK:
        cached = _SCHEMA_CACHE.get(key)
        if cached is not None:
            _SCHEMA_CACHE.move_to_end(key)
            return cached
    # The 2020-12 metaschema reaches one keyword along several paths: report each once.
    found = list(dict.fromkeys((v.path, v.message, v.keyword) for v in check_schema(schema)))
    # Before 2025-11-25 no dialect was the default: accept draft-07 too.
    lenient = found and lenient_dialect and isinstance(schema, dict) and "$schema" not in schema
    if lenient and not check_schema({**schema, "$schema": _DRAFT7}):
        found = []
    with _SCHEMA_LOCK:
        _SCHEMA_CACHE[key] = found
        if len(_SCHEMA_CACHE) > _SCHEMA_CACHE_SIZE:
            _SCHEMA_CACHE.popitem(last=False)
    return found


def check_tool_schemas(
    tool: Any, revision: str | None, prefix: Path = (), *, subject: str = "", seq: int | None = None
) -> list[Problem]:
    """A tool's inputSchema and outputSchema against their metaschema."""
    if not isinstance(tool, dict):
        return []
    out: list[Problem] = []
    lenient = not at_least(revision, "2025-11-25")
    for key, rule_id in (("inputSchema", "tool-input-schema-invalid"), ("outputSchema", "tool-output-schema-invalid")):
        schema = tool.get(key)
        if not isinstance(schema, dict):
            continue
        rule = RULES[rule_id]
        for path, message, keyword in _schema_violations(schema, lenient)[:MAX_ISSUES]:
            severity = "warning" if keyword == "$schema" else None
            out.append(
                rule.problem(
                    message,
                    revision=revision,
                    path=join_path((*prefix, key), path),
                    subject=subject,
                    severity=severity,
                    seq=seq,
                )
            )
    return out


def check_structured_content(
    result: Any, tool: Any, revision: str | None, prefix: Path = ("result",), *, seq: int | None = None
) -> list[Problem]:
    """A tools/call result against the tool's outputSchema."""
    if not isinstance(result, dict) or not isinstance(tool, dict):
        return []
    schema = tool.get("outputSchema")
    if not isinstance(schema, dict) or result.get("isError") is True:
        return []
    name = tool.get("name")
    subject = f"tool {short_json(name, 80)}" if isinstance(name, str) else ""
    if "structuredContent" not in result:
        return [
            RULES["structured-content-missing"].problem(
                "the tool declares an outputSchema but the result has no structuredContent",
                revision=revision,
                path=format_path(prefix),
                subject=subject,
                seq=seq,
            )
        ]
    from inspector.forms import validate_value

    out = []
    for violation in validate_value(schema, result["structuredContent"])[:MAX_ISSUES]:
        if violation.keyword == "schema":
            continue  # the schema itself is unusable: reported with the tool
        out.append(
            RULES["structured-content-invalid"].problem(
                violation.message,
                revision=revision,
                path=join_path((*prefix, "structuredContent"), violation.path),
                subject=subject,
                seq=seq,
                # A pattern too slow to apply proves nothing about the value.
                severity="warning" if violation.unchecked else None,
            )
        )
    return out
