"""Every rule `inspector lint` and the wire validation report: one catalogue.

A rule is a `Rule` (stable id, default severity, one-line rationale, the spec
page and what it says there); a check reports a `Problem` that names it.
The ids are stable: tests, the TUI's Problems view, saved recordings and
`inspector lint --rules` (which lists this table in order) all use them.

Categories: ``lint`` for what the listed items declare (`lint_items`,
`lint_schemas`), ``capability`` and ``pagination`` for what lint finds by
exercising the live connection (`lint_live`), ``wire`` for what the
validation finds in each frame (`frame_validator`), which lint also runs over
every frame of its session.
"""

from __future__ import annotations

from functools import partial

from inspector.core.checks.problems import Problem, Rule

__all__ = ["RULES", "problem"]

_lint = partial(Rule, category="lint")
_capability = partial(Rule, category="capability")
_pagination = partial(Rule, category="pagination")
_wire = partial(Rule, category="wire")


def _catalogue(*rules: Rule) -> dict[str, Rule]:
    """The rules by id, in the order given; an id names one rule."""
    table: dict[str, Rule] = {}
    for rule in rules:
        if rule.id in table:
            raise ValueError(f"two rules have the id {rule.id!r}")
        table[rule.id] = rule
    return table


RULES: dict[str, Rule] = _catalogue(
    # -- lint: tools -------------------------------------------------------------------------------
    _lint(
        "tool-name-length",
        "warning",
        "tool names should be 1 to 128 characters long",
        "server/tools",
        "tool-names",
        since="2025-11-25",
        spec="Tool names SHOULD be between 1 and 128 characters in length (inclusive).",
    ),
    _lint(
        "tool-name-chars",
        "warning",
        "tool names should use only ASCII letters, digits, underscore, hyphen and dot",
        "server/tools",
        "tool-names",
        since="2025-11-25",
        spec="The following SHOULD be the only allowed characters: A-Z, a-z, 0-9, underscore (_), hyphen (-), "
        "and dot (.).",
    ),
    _lint(
        "tool-name-duplicate",
        "error",
        "two tools share a name, so a client can call only one of them",
        "server/tools",
        "tool-names",
        spec="name: unique identifier for the tool. Tool names SHOULD be unique within a server.",
        # Every revision says a name is the tool's unique identifier (in its Tool data type);
        # the "Tool Names" section exists from 2025-11-25.
        anchor_before=(("2025-11-25", "tool"),),
    ),
    _lint(
        "tool-description-missing",
        "warning",
        "a tool without a description leaves the model guessing what it does",
        "server/tools",
        "tool",
        spec="description: human-readable description of functionality.",
    ),
    _lint(
        "schema-required-undefined",
        "warning",
        "a required property that the schema does not define: no form field for it, no type, no description",
        "server/tools",
        "tool",
        spec="inputSchema: JSON Schema defining expected parameters.",
    ),
    _lint(
        "schema-property-no-description",
        "info",
        "a tool argument (a top-level input property) with no description or title, on itself, its $ref "
        "target or any anyOf/oneOf variant, leaves the model guessing (good practice; the spec does not "
        "require it)",
        "server/tools",
        "tool",
        spec="inputSchema: JSON Schema defining expected parameters.",
    ),
    _lint(
        "schema-default-invalid",
        "error",
        "a default that its own schema rejects (not in the enum, wrong type, out of range)",
        "server/tools",
        "tool",
        spec="JSON Schema: a default value SHOULD be valid against its schema.",
    ),
    _lint(
        "schema-enum-type",
        "error",
        "an enum or const value that contradicts the declared type can never be sent",
        "server/tools",
        "tool",
        spec="JSON Schema: every enum member must also satisfy the other keywords to be valid.",
    ),
    _lint(
        "schema-unsatisfiable",
        "error",
        "bounds that contradict each other (minimum above maximum, an empty enum): no value is valid",
        "server/tools",
        "tool",
        spec="JSON Schema: an instance must satisfy every keyword of its schema.",
    ),
    _lint(
        "schema-pattern-backtracking",
        "warning",
        "a pattern that needs a backtracking engine (backreference, lookaround) or is too large for a "
        "linear-time one: clients may refuse it or hang on it",
        "basic",
        "json-schema-usage",
        since="2025-11-25",
        spec="JSON Schema: for interoperability, patterns should keep to the common subset of ECMA-262 "
        "regular expressions.",
    ),
    _lint(
        "form-unrenderable",
        "info",
        "a part of the input schema that the inspector's form shows as raw JSON (or checks without showing)",
        "basic",
        "json-schema-usage",
        since="2025-11-25",
        spec="Clients build input forms from the tool's inputSchema.",
    ),
    _lint(
        "tool-annotations-contradiction",
        "warning",
        "readOnlyHint true with destructiveHint true: a read-only tool cannot be destructive",
        "server/tools",
        "tool",
        since="2025-03-26",
        spec="destructiveHint is meaningful only when readOnlyHint == false.",
    ),
    # -- lint: resources and templates -------------------------------------------------------------
    _lint(
        "resource-uri-duplicate",
        "error",
        "two resources share a URI, so a client cannot tell them apart",
        "server/resources",
        "resource",
        spec="uri: unique identifier for the resource.",
    ),
    _lint(
        "resource-uri-invalid",
        "warning",
        "a resource URI without a scheme is not an absolute URI",
        "server/resources",
        "common-uri-schemes",
        spec="Resources are identified by URIs (RFC 3986).",
    ),
    _lint(
        "template-invalid",
        "error",
        "a resource template that is not a valid RFC 6570 URI template",
        "server/resources",
        "resource-templates",
        spec="uriTemplate: a URI template (according to RFC 6570).",
    ),
    _lint(
        "template-duplicate",
        "warning",
        "two resource templates with the same uriTemplate",
        "server/resources",
        "resource-templates",
        spec="Resource templates allow servers to expose parameterized resources using URI templates.",
    ),
    _lint(
        "template-no-variables",
        "info",
        "a resource template without variables is a plain resource",
        "server/resources",
        "resource-templates",
        spec="Resource templates expose parameterized resources.",
    ),
    # -- lint: prompts -----------------------------------------------------------------------------
    _lint(
        "prompt-name-duplicate",
        "error",
        "two prompts share a name, so a client can get only one of them",
        "server/prompts",
        "prompt",
        spec="name: unique identifier for the prompt.",
    ),
    _lint(
        "prompt-argument-duplicate",
        "error",
        "a prompt with two arguments of the same name",
        "server/prompts",
        "prompt",
        spec="arguments: list of arguments, each identified by its name.",
    ),
    # -- capability and pagination: the live connection (lists paged by hand, capabilities exercised) ---
    _capability(
        "capability-undeclared-list",
        "warning",
        "a list method answers with items although the server does not declare its capability",
        "basic/lifecycle",
        "capability-negotiation",
        spec="Servers that support tools/resources/prompts MUST declare the capability.",
    ),
    _capability(
        "capability-list-fails",
        "error",
        "the server declares a capability but its list method fails",
        "basic/lifecycle",
        "capability-negotiation",
        spec="A declared capability promises the operations it covers.",
    ),
    _capability(
        "capability-subscribe-fails",
        "error",
        "resources.subscribe is declared but resources/subscribe fails",
        "server/resources",
        "subscriptions",
        spec="subscribe: whether the client can subscribe to be notified of changes to individual resources.",
    ),
    _capability(
        "capability-completions-fails",
        "error",
        "completions is declared but completion/complete fails",
        "server/utilities/completion",
        since="2025-03-26",
        spec="Servers that support completions MUST declare the completions capability.",
    ),
    _capability(
        "capability-logging-fails",
        "error",
        "logging is declared but logging/setLevel fails",
        "server/utilities/logging",
        spec="Servers that emit log message notifications MUST declare the logging capability.",
    ),
    _capability(
        "capability-list-changed-unobserved",
        "info",
        "a declared listChanged whose notification never arrived during the run (lint cannot change a list, "
        "so this is a hint, not proof)",
        "server/tools",
        "list-changed-notification",
        spec="listChanged: the server will emit a notification when the list of tools, resources or prompts changes.",
    ),
    _capability(
        "capability-listen-refused",
        "warning",
        "a declared listChanged that subscriptions/listen does not honour (or no acknowledgement)",
        "basic/patterns/subscriptions",
        "acknowledgment",
        since="2026-07-28",
        spec="The server acknowledges the subset of requested notifications it will send.",
    ),
    _pagination(
        "pagination-cursor-repeats",
        "error",
        "a list offers a nextCursor it already gave: following it would loop",
        "server/utilities/pagination",
        "implementation-guidelines",
        spec="Servers SHOULD provide stable cursors; a cursor leads to the next page.",
    ),
    _pagination(
        "pagination-endless",
        "error",
        "a list still offers a nextCursor after many pages",
        "server/utilities/pagination",
        "pagination-model",
        spec="The end of the results is reached when nextCursor is absent.",
    ),
    # -- wire: every frame of the session, as it arrives -------------------------------------------
    _wire(
        "stdout-not-json",
        "error",
        "a stdio server wrote a line to stdout that is not a JSON-RPC message (logs belong on stderr)",
        "basic/transports",
        "stdio",
        spec="The server MUST NOT write anything to its stdout that is not a valid MCP message.",
    ),
    _wire(
        "jsonrpc-parse",
        "error",
        "a frame is not valid JSON (or not UTF-8), so nobody can read it",
        "basic",
        spec="MCP messages are JSON-RPC 2.0 messages, UTF-8 encoded JSON.",
    ),
    _wire(
        "jsonrpc-envelope",
        "error",
        "the JSON-RPC envelope is wrong: jsonrpc version, id type, result/error, error object",
        "basic",
        spec='Messages carry "jsonrpc": "2.0"; request ids are strings or integers and MUST NOT be null; '
        "a response has a result or an error, not both.",
    ),
    _wire(
        "jsonrpc-batch",
        "error",
        "JSON-RPC batches were removed in 2025-06-18",
        "changelog",
        since="2025-06-18",
        spec="Remove support for JSON-RPC batching (2025-06-18).",
    ),
    _wire(
        "jsonrpc-session",
        "warning",
        "a message that does not fit the session: a response to an unknown id, progress for a finished request",
        "basic",
        spec="Responses MUST carry the id of the request they answer.",
    ),
    _wire(
        "protocol-version-unknown",
        "error",
        "the server answered initialize with a protocol version that is not a released revision",
        "basic/lifecycle",
        "version-negotiation",
        spec="If the server supports the requested version it MUST answer with it; otherwise with another "
        "version it supports.",
    ),
    _wire(
        "method-not-in-revision",
        "error",
        "a method used that the negotiated revision does not define (it belongs to another revision)",
        "basic/lifecycle",
        spec="Both parties MUST use the protocol version negotiated for the session.",
    ),
    _wire(
        "method-unknown",
        "info",
        "a method that no revision of the spec defines (an extension or a typo)",
        "basic",
        spec="Methods are defined by the specification; custom methods are extensions.",
    ),
    _wire(
        "wire-schema",
        "error",
        "the message does not match the wire schema of the negotiated revision",
        "basic",
        spec="Messages MUST follow the schema of the negotiated protocol revision.",
    ),
    # Info, not warning: no revision's schema.json closes an object
    # (additionalProperties is never false), so a message with a field from a
    # later revision is still valid in the negotiated one; a peer on that
    # revision ignores it.  What the schema does reject (a content type or an
    # enum value it lacks) is wire-value-newer, an error.
    _wire(
        "wire-field-newer",
        "info",
        "a field that a later revision added: the negotiated revision does not define it, so a peer on "
        "that revision ignores it (its schema allows extra fields)",
        "changelog",
        since="2025-03-26",
        spec="Fields exist from the revision that introduced them; the schema of every revision allows "
        "additional properties, so the message stays valid.",
    ),
    _wire(
        "wire-value-newer",
        "error",
        "a content type, union member, enum value or shape that only a later revision allows: the "
        "negotiated revision's schema rejects the message (e.g. an audio block in a 2024-11-05 session)",
        "changelog",
        since="2025-03-26",
        spec="Both parties MUST respect the negotiated protocol version; its schema lists the content types "
        "and values it allows.",
    ),
    _wire(
        "wire-field-unknown",
        "info",
        "a field that no revision defines (a typo, or an extension that belongs in _meta)",
        "basic",
        "meta",
        spec="Extension data belongs in _meta; other unknown fields are ignored by clients.",
        # The `_meta` section of the basic page exists from 2025-06-18.
        anchor_before=(("2025-06-18", ""),),
    ),
    _wire(
        "capability-undeclared-request",
        "error",
        "the server sent a request for a client capability the client did not declare",
        "basic/lifecycle",
        "capability-negotiation",
        spec="Both parties MUST only use capabilities that were successfully negotiated.",
    ),
    _wire(
        "capability-undeclared-notification",
        "warning",
        "the server sent a notification for a capability it did not declare",
        "basic/lifecycle",
        "capability-negotiation",
        spec="Both parties MUST only use capabilities that were successfully negotiated.",
    ),
    _wire(
        "tool-input-schema-root",
        "error",
        'a tool inputSchema must be a JSON Schema object with "type": "object" at the root',
        "server/tools",
        "tool",
        spec='inputSchema: a JSON Schema object with type "object"; MUST be a valid JSON Schema object (not null).',
    ),
    _wire(
        "tool-input-schema-invalid",
        "error",
        "a tool inputSchema is not a valid JSON Schema (checked against the metaschema it declares)",
        "server/tools",
        "tool",
        spec="inputSchema MUST be a valid JSON Schema; $schema names the dialect, 2020-12 when absent.",
    ),
    _wire(
        "tool-output-schema-invalid",
        "error",
        'a tool outputSchema is not a valid JSON Schema, or not "type": "object" at the root',
        "server/tools",
        "output-schema",
        since="2025-06-18",
        spec='outputSchema: a JSON Schema of "type": "object"; $schema names the dialect, 2020-12 when absent.',
    ),
    _wire(
        "tool-arguments-invalid",
        "warning",
        "tool arguments sent that do not match the tool's inputSchema",
        "server/tools",
        "calling-tools",
        spec="arguments are validated against the tool's inputSchema.",
    ),
    _wire(
        "prompt-argument-name",
        "error",
        "a prompt argument without a name cannot be filled in",
        "server/prompts",
        "data-types",
        spec="PromptArgument.name: string (required).",
    ),
    _wire(
        "structured-content-invalid",
        "error",
        "a tool result's structuredContent does not match the tool's outputSchema",
        "server/tools",
        "output-schema",
        since="2025-06-18",
        spec="If an output schema is provided, servers MUST provide structured results that conform to it.",
    ),
    _wire(
        "structured-content-missing",
        "error",
        "a tool that declares an outputSchema returned no structuredContent (and the result is not an error)",
        "server/tools",
        "output-schema",
        since="2025-06-18",
        spec="If an output schema is provided, servers MUST provide structured results that conform to it.",
    ),
)


def problem(rule_id: str, message: str, revision: str | None, *, subject: str = "", path: str = "") -> Problem:
    """A finding of rule `rule_id`, linked to the spec of `revision`."""
    return RULES[rule_id].problem(message, revision=revision, subject=subject, path=path)
