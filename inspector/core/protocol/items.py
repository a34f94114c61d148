"""Lenient views of list items (tools, resources, templates, prompts).

Each item is checked on its own: a broken one keeps its raw JSON and a list
of what is wrong, and the rest of the page still works.  These checks are
the structural minimum needed to use an item; the full per-revision wire
validation lives in `checks.frame_validator` and runs separately.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "HINT_DEFAULTS",
    "HINT_NAMES",
    "KIND_FIELDS",
    "Hint",
    "Item",
    "ListResult",
    "parse_item",
    "parse_items",
    "tool_hints",
]

# kind -> (result key, identifying field)
KIND_FIELDS: dict[str, tuple[str, str]] = {
    "tools": ("tools", "name"),
    "resources": ("resources", "uri"),
    "templates": ("resourceTemplates", "uriTemplate"),
    "prompts": ("prompts", "name"),
}

LIST_METHODS: dict[str, str] = {
    "tools": "tools/list",
    "resources": "resources/list",
    "templates": "resources/templates/list",
    "prompts": "prompts/list",
}

HINT_NAMES = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
# The spec's defaults for a tool that says nothing: assume the worst.
HINT_DEFAULTS: dict[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


@dataclass(slots=True)
class Hint:
    """One tool annotation hint: its value, whether the tool gave it (else the spec's default), whether it
    applies (not for a read-only tool's destructive and idempotent hints), and a non-boolean value given."""

    name: str
    value: bool
    explicit: bool
    # destructiveHint and idempotentHint mean nothing for a read-only tool.
    applies: bool = True
    invalid: Any = None


@dataclass(slots=True)
class Item:
    """One listed tool, resource, template or prompt: its raw JSON, what is wrong with it, and its page."""

    kind: str
    raw: Any
    problems: list[str] = field(default_factory=list)
    page: int = 0

    @property
    def ok(self) -> bool:
        """Whether nothing is wrong with it."""
        return not self.problems

    @property
    def data(self) -> JSONObject:
        """Its JSON object (empty when the item is not an object)."""
        return self.raw if isinstance(self.raw, dict) else {}

    @property
    def key(self) -> str:
        """The name, URI or URI template that identifies this item."""
        value = self.data.get(KIND_FIELDS[self.kind][1])
        return value if isinstance(value, str) else f"<item {self.page}:{id(self.raw) % 10000}>"

    @property
    def name(self) -> str:
        """Its ``name`` (the key when it has none)."""
        value = self.data.get("name")
        return value if isinstance(value, str) else self.key

    @property
    def title(self) -> str | None:
        """Its ``title``, or a tool's ``annotations.title`` (None when neither is a non-empty string)."""
        title = self.data.get("title")
        if isinstance(title, str) and title:
            return title
        annotations = self.data.get("annotations")
        if self.kind == "tools" and isinstance(annotations, dict):
            title = annotations.get("title")
            if isinstance(title, str) and title:
                return title
        return None

    @property
    def display_name(self) -> str:
        """The title, else the name."""
        return self.title or self.name

    @property
    def description(self) -> str:
        """Its description ("" when it has none)."""
        value = self.data.get("description")
        return value if isinstance(value, str) else ""

    @property
    def input_schema(self) -> JSONObject:
        """A tool's ``inputSchema`` (an empty object schema when it is not an object)."""
        schema = self.data.get("inputSchema")
        return schema if isinstance(schema, dict) else {"type": "object"}

    @property
    def output_schema(self) -> JSONObject | None:
        """A tool's ``outputSchema`` (None when it has none)."""
        schema = self.data.get("outputSchema")
        return schema if isinstance(schema, dict) else None

    def hints(self) -> list[Hint]:
        """The tool's annotation hints (`tool_hints`)."""
        return tool_hints(self.data)


def tool_hints(tool: JSONObject) -> list[Hint]:
    """The four annotation hints with the spec's defaults applied."""
    annotations = tool.get("annotations")
    annotations = annotations if isinstance(annotations, dict) else {}
    hints = []
    read_only = annotations.get("readOnlyHint") is True
    for name in HINT_NAMES:
        value = annotations.get(name)
        if isinstance(value, bool):
            hint = Hint(name, value, True)
        else:
            hint = Hint(name, HINT_DEFAULTS[name], False, invalid=value)
        if read_only and name in ("destructiveHint", "idempotentHint"):
            hint.applies = False
        hints.append(hint)
    return hints


def _check_tool(raw: JSONObject, problems: list[str]) -> None:
    schema = raw.get("inputSchema")
    if schema is None:
        problems.append("inputSchema is missing (required)")
    elif not isinstance(schema, dict):
        problems.append(f"inputSchema is not an object: {type(schema).__name__}")
    elif schema.get("type") != "object":
        problems.append(f'inputSchema.type must be "object", got {schema.get("type")!r}')
    output = raw.get("outputSchema")
    if output is not None and not isinstance(output, dict):
        problems.append("outputSchema is not an object")
    annotations = raw.get("annotations")
    if annotations is not None:
        if not isinstance(annotations, dict):
            problems.append("annotations is not an object")
        else:
            for name in HINT_NAMES:
                if name in annotations and not isinstance(annotations[name], bool):
                    problems.append(f"annotations.{name} is not a boolean: {annotations[name]!r}")


def _check_prompt(raw: JSONObject, problems: list[str]) -> None:
    arguments = raw.get("arguments")
    if arguments is None:
        return
    if not isinstance(arguments, list):
        problems.append("arguments is not an array")
        return
    for index, argument in enumerate(arguments):
        if not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
            problems.append(f"arguments[{index}] has no string name")


def parse_item(kind: str, raw: Any, page: int = 0) -> Item:
    """An item of `kind`, with the problems that keep it from being used: a missing key, name or
    input schema, fields of the wrong type."""
    item = Item(kind, raw, page=page)
    if not isinstance(raw, dict):
        item.problems.append(f"item is not an object: {type(raw).__name__}")
        return item
    key_field = KIND_FIELDS[kind][1]
    if not isinstance(raw.get(key_field), str):
        item.problems.append(f"{key_field} is missing or not a string")
    if kind in ("resources", "templates") and not isinstance(raw.get("name"), str):
        item.problems.append("name is missing or not a string")
    if "description" in raw and raw["description"] is not None and not isinstance(raw["description"], str):
        item.problems.append("description is not a string")
    if kind == "tools":
        _check_tool(raw, item.problems)
    elif kind == "prompts":
        _check_prompt(raw, item.problems)
    return item


def parse_items(kind: str, raws: list[Any], page: int = 0) -> list[Item]:
    """`parse_item` of each of one page's items, quicker for a long page:
    a tool that is plainly well formed is passed by one look at each field;
    any other goes through `parse_item`, which words its problems."""
    if kind != "tools":
        return [parse_item(kind, raw, page) for raw in raws]
    items: list[Item] = []
    append = items.append
    for raw in raws:
        if _plain_tool(raw):
            append(Item(kind, raw, [], page))
        else:
            append(parse_item(kind, raw, page))
    return items


def _plain_tool(raw: Any) -> bool:
    """Whether `parse_item` would find nothing wrong with this tool; exact
    types (what a JSON decoder makes) are demanded, anything else is left
    to `parse_item`."""
    if type(raw) is not dict:
        return False
    get = raw.get
    schema = get("inputSchema")
    if type(get("name")) is not str or type(schema) is not dict or schema.get("type") != "object":
        return False
    description = get("description")
    if description is not None and type(description) is not str:
        return False
    output = get("outputSchema")
    if output is not None and type(output) is not dict:
        return False
    annotations = get("annotations")
    if annotations is None:
        return True
    if type(annotations) is not dict:
        return False
    hint = annotations.get
    # HINT_NAMES, spelled out: no loop or generator per tool.
    return (
        type(hint("readOnlyHint", False)) is bool
        and type(hint("destructiveHint", False)) is bool
        and type(hint("idempotentHint", False)) is bool
        and type(hint("openWorldHint", False)) is bool
    )


@dataclass(slots=True)
class ListResult:
    """Every page of one list, the items parsed leniently, and what went wrong."""

    kind: str
    items: list[Item] = field(default_factory=list)
    pages: list[JSONObject] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    complete: bool = True
    # Caching hints of the stateless era, and whether this came from the cache.
    ttl_ms: int | None = None
    cache_scope: str | None = None
    from_cache: bool = False
    age: float = 0.0
    # Items the client must not use (a tool with an invalid x-mcp-header).
    excluded: list[Item] = field(default_factory=list)

    def names(self) -> list[str]:
        """The keys of the items, in order."""
        return [item.key for item in self.items]

    def find(self, key: str) -> Item | None:
        """The item whose key is `key` (None when there is none)."""
        for item in self.items:
            if item.key == key:
                return item
        return None
