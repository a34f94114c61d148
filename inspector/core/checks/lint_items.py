"""The lint rules that look at listed items: tools, resources, templates, prompts.

Each check is a plain function over `Item`s (the lenient parse of a list) and
returns `Problem`s; `lint_run` runs them after listing everything, beside the
checks of the live connection (`lint_live`) and the wire validation of the
whole session.  A tool's schemas are looked at by `lint_schemas`, a
template's grammar by `uri_template`.  Paths are relative to the item
(``inputSchema.properties.city``) and the subject names it (``tool "add"``).
"""

from __future__ import annotations

import re

from inspector.core.checks.lint_schemas import form_rules, schema_rules
from inspector.core.checks.problems import Problem
from inspector.core.checks.rules import RULES, problem
from inspector.core.checks.uri_template import template_errors
from inspector.core.protocol.items import Item
from inspector.forms.values import short_json

__all__ = ["check_prompts", "check_resources", "check_templates", "check_tools"]


def _noun(kind: str, key: str) -> str:
    noun = {"tools": "tool", "resources": "resource", "templates": "template", "prompts": "prompt"}[kind]
    return f"{noun} {short_json(key, 80)}"


class _Repeated:
    """How many items share each value of a key (a name, a URI), for a problem told once per value."""

    def __init__(self, items: list[Item], key: str) -> None:
        self.counts: dict[str, int] = {}
        for item in items:
            value = item.data.get(key)
            if isinstance(value, str):
                self.counts[value] = self.counts.get(value, 0) + 1
        self.told: set[str] = set()

    def first_of_many(self, value: str) -> int:
        """How many items have `value`, the first time it is asked of a value more than one has; else 0."""
        count = self.counts.get(value, 0)
        if count <= 1 or value in self.told:
            return 0
        self.told.add(value)
        return count


# -- tools ---------------------------------------------------------------------------


_TOOL_NAME_CHARS = re.compile(r"[A-Za-z0-9_.\-]+")


def check_tools(items: list[Item], revision: str | None) -> list[Problem]:
    """Each tool's problems: its name's length, characters and uniqueness, a missing description,
    its input and output schemas (and the form built from the input), contradictory annotations."""
    out: list[Problem] = []
    repeated = _Repeated(items, "name")
    for item in items:
        raw = item.data
        name = raw.get("name")
        if not isinstance(name, str):
            continue  # the wire validation reports it
        subject = _noun("tools", name)
        if not 1 <= len(name) <= 128:
            out.append(
                problem("tool-name-length", f"the name is {len(name)} characters long", revision, subject=subject)
            )
        if name and not _TOOL_NAME_CHARS.fullmatch(name):
            bad = sorted({c for c in name if not _TOOL_NAME_CHARS.fullmatch(c)})
            shown = ", ".join(short_json(c) for c in bad[:10])
            out.append(problem("tool-name-chars", f"the name contains {shown}", revision, subject=subject))
        if count := repeated.first_of_many(name):
            out.append(
                problem(
                    "tool-name-duplicate",
                    f"{count} tools are named {short_json(name)}",
                    revision,
                    subject=subject,
                )
            )
        description = raw.get("description")
        if not isinstance(description, str) or not description.strip():
            out.append(problem("tool-description-missing", "the tool has no description", revision, subject=subject))
        schema = raw.get("inputSchema")
        if isinstance(schema, dict):
            out.extend(schema_rules(schema, ("inputSchema",), revision, subject, describe=True))
            out.extend(form_rules(schema, revision, subject))
        output = raw.get("outputSchema")
        if isinstance(output, dict):
            out.extend(schema_rules(output, ("outputSchema",), revision, subject, describe=False))
        annotations = raw.get("annotations")
        if (
            isinstance(annotations, dict)
            and annotations.get("readOnlyHint") is True
            and annotations.get("destructiveHint") is True
        ):
            out.append(
                problem(
                    "tool-annotations-contradiction",
                    "readOnlyHint is true and destructiveHint is true",
                    revision,
                    subject=subject,
                    path="annotations",
                )
            )
    return out


# -- resources and templates ---------------------------------------------------------------

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def check_resources(items: list[Item], revision: str | None) -> list[Problem]:
    """Resources that share a URI, and URIs without a scheme."""
    out: list[Problem] = []
    repeated = _Repeated(items, "uri")
    for item in items:
        uri = item.data.get("uri")
        if not isinstance(uri, str):
            continue
        subject = _noun("resources", uri)
        if count := repeated.first_of_many(uri):
            out.append(problem("resource-uri-duplicate", f"{count} resources have this URI", revision, subject=subject))
        if not _SCHEME.match(uri):
            out.append(
                problem(
                    "resource-uri-invalid", "the URI has no scheme (e.g. file://, https://)", revision, subject=subject
                )
            )
    return out


def check_templates(items: list[Item], revision: str | None) -> list[Problem]:
    """Templates whose URI template does not parse, has no variables, or is listed twice."""
    out: list[Problem] = []
    repeated = _Repeated(items, "uriTemplate")
    for item in items:
        template = item.data.get("uriTemplate")
        if not isinstance(template, str):
            continue
        subject = _noun("templates", template)
        errors = template_errors(template)
        for error in errors[:5]:
            out.append(problem("template-invalid", error, revision, subject=subject, path="uriTemplate"))
        if not errors and "{" not in template:
            out.append(problem("template-no-variables", "the template has no {variables}", revision, subject=subject))
        if count := repeated.first_of_many(template):
            out.append(
                problem(
                    "template-duplicate",
                    f"{count} templates have this uriTemplate",
                    revision,
                    subject=subject,
                )
            )
    return out


# -- prompts ---------------------------------------------------------------------------------


def check_prompts(items: list[Item], revision: str | None) -> list[Problem]:
    """Prompts listed twice under one name, and arguments whose name is empty or repeated."""
    out: list[Problem] = []
    repeated = _Repeated(items, "name")
    for item in items:
        name = item.data.get("name")
        if not isinstance(name, str):
            continue
        subject = _noun("prompts", name)
        if count := repeated.first_of_many(name):
            out.append(
                problem(
                    "prompt-name-duplicate",
                    f"{count} prompts are named {short_json(name)}",
                    revision,
                    subject=subject,
                )
            )
        arguments = item.data.get("arguments")
        if not isinstance(arguments, list):
            continue
        seen: dict[str, int] = {}
        for index, argument in enumerate(arguments):
            arg_name = argument.get("name") if isinstance(argument, dict) else None
            if isinstance(arg_name, str) and not arg_name.strip():
                # A missing or non-string name is a schema error, reported by the wire validation.
                out.append(
                    RULES["prompt-argument-name"].problem(
                        "the argument's name is empty",
                        revision=revision,
                        subject=subject,
                        path=f"arguments[{index}].name",
                    )
                )
            elif isinstance(arg_name, str):
                if arg_name in seen:
                    out.append(
                        problem(
                            "prompt-argument-duplicate",
                            f"arguments[{seen[arg_name]}] and arguments[{index}] are both named {short_json(arg_name)}",
                            revision,
                            subject=subject,
                            path=f"arguments[{index}].name",
                        )
                    )
                else:
                    seen[arg_name] = index
    return out
