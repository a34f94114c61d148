"""A server's registry description (`server.json`) against what it serves.

The MCP registry's `server.json` (schema `registry_schema/server.schema.json`,
a copy of the 2025-12-11 schema) names the server (`name`, reverse-DNS, and
`title`), its `version` ("equivalent of Implementation.version"), the
packages that run it locally (each with a `transport`: stdio,
streamable-http or sse) and the `remotes` that serve it.  The schema has no
tool list; a card that carries one anyway (a top-level `tools`, or `tools`
in the publisher-provided `_meta`, as names or objects with a `name`) has
it compared too.

Nothing here prints or connects: the command does both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "MAX_CARD_BYTES",
    "Card",
    "CardError",
    "Difference",
    "compare_live",
    "load_card",
    "parse_card",
    "schema_problems",
]

MAX_CARD_BYTES = 4 * 1024 * 1024
PUBLISHER_META = "io.modelcontextprotocol.registry/publisher-provided"
# server.json's remote/package transport types -> our transport names.
TRANSPORTS = {"streamable-http": "http", "sse": "sse", "stdio": "stdio"}


class CardError(Exception):
    """A card that cannot be read or is not a JSON object."""


@dataclass
class Remote:
    """One of the card's `remotes`: its transport type and URL."""

    type: str
    url: str

    @property
    def transport(self) -> str | None:
        """Our transport name for its type (None for stdio, or a type we do not know)."""
        return TRANSPORTS.get(self.type) if self.type != "stdio" else None

    @property
    def templated(self) -> bool:
        """Whether the URL has `{variable}` placeholders, whose values the card leaves to the user."""
        # `{variable}` placeholders need values the card leaves to the user.
        return "{" in self.url


@dataclass
class Card:
    """A parsed `server.json`; its properties skip members of the wrong type."""

    raw: JSONObject

    def _text(self, key: str) -> str | None:
        value = self.raw.get(key)
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str | None:
        """The server's reverse-DNS `name`."""
        return self._text("name")

    @property
    def title(self) -> str | None:
        """The display `title`."""
        return self._text("title")

    @property
    def version(self) -> str | None:
        """The server `version` the card describes."""
        return self._text("version")

    @property
    def remotes(self) -> list[Remote]:
        """The `remotes` that have a type and a URL."""
        remotes = self.raw.get("remotes")
        found = []
        for remote in remotes if isinstance(remotes, list) else ():
            if isinstance(remote, dict) and isinstance(remote.get("type"), str) and isinstance(remote.get("url"), str):
                found.append(Remote(remote["type"], remote["url"]))
        return found

    @property
    def package_transports(self) -> list[str]:
        """The transport type of each package that names one (stdio, streamable-http, sse)."""
        packages = self.raw.get("packages")
        types = []
        for package in packages if isinstance(packages, list) else ():
            transport = package.get("transport") if isinstance(package, dict) else None
            kind = transport.get("type") if isinstance(transport, dict) else None
            if isinstance(kind, str):
                types.append(kind)
        return types

    @property
    def tools(self) -> list[str] | None:
        """The tool names the card lists (top level, else the publisher-provided `_meta`); None when it lists none."""
        listed = self.raw.get("tools")
        if listed is None:
            meta = self.raw.get("_meta")
            provided = meta.get(PUBLISHER_META) if isinstance(meta, dict) else None
            listed = provided.get("tools") if isinstance(provided, dict) else None
        if not isinstance(listed, list):
            return None
        names = []
        for entry in listed:
            name = entry.get("name") if isinstance(entry, dict) else entry
            if isinstance(name, str):
                names.append(name)
        return names


@dataclass
class Difference:
    """One way the card and the live server disagree: what, each side's value, and a note."""

    what: str
    card: Any
    live: Any
    note: str = ""

    def to_json(self) -> JSONObject:
        """The difference for the JSON report (the note only when there is one)."""
        return {"what": self.what, "card": self.card, "live": self.live, **({"note": self.note} if self.note else {})}


@dataclass
class LiveView:
    """What a connection showed: enough to compare, nothing that needs it open."""

    server_info: JSONObject
    transport: str
    url: str | None
    tools: list[str] | None = None
    problems: list[str] = field(default_factory=list)


def parse_card(text: bytes | str, source: str) -> Card:
    """The card in *text*; `CardError`, naming *source*, when it is not a JSON object."""
    try:
        value = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CardError(f"{source}: not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise CardError(f"{source}: a server.json is a JSON object, this is {type(value).__name__}")
    return Card(value)


def load_card(source: str, timeout: float | None = 30.0) -> Card:
    """A card from a file or an http(s) URL (at most MAX_CARD_BYTES)."""
    if source.startswith(("http://", "https://")):
        return parse_card(_fetch(source, timeout), source)
    try:
        with open(source, "rb") as handle:
            data = handle.read(MAX_CARD_BYTES + 1)
    except OSError as exc:
        raise CardError(f"{source}: {exc.strerror or exc}") from exc
    if len(data) > MAX_CARD_BYTES:
        raise CardError(f"{source}: larger than {MAX_CARD_BYTES} bytes")
    return parse_card(data, source)


def _fetch(url: str, timeout: float | None) -> bytes:
    import httpx2

    try:
        with (
            httpx2.Client(timeout=timeout, follow_redirects=True) as client,
            client.stream("GET", url, headers={"Accept": "application/json"}) as response,
        ):
            if response.status_code != 200:
                raise CardError(f"{url}: HTTP {response.status_code}")
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) > MAX_CARD_BYTES:
                    raise CardError(f"{url}: larger than {MAX_CARD_BYTES} bytes")
            return bytes(data)
    except httpx2.HTTPError as exc:
        raise CardError(f"{url}: {exc.__class__.__name__}: {exc}") from exc


def schema_problems(card: Card) -> list[str]:
    """Where the card breaks the registry's server.json schema."""
    from importlib import resources

    import jsonschema

    schema = json.loads(
        resources.files("inspector.core.compare").joinpath("registry_schema", "server.schema.json").read_text("utf-8")
    )
    validator = jsonschema.Draft7Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(card.raw), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        problems.append(f"{where}: {error.message}")
    return problems


def _name_matches(card: Card, info: JSONObject) -> bool:
    live_name = info.get("name")
    if not isinstance(live_name, str) or card.name is None:
        return False
    # `io.github.user/weather` names a server whose Implementation is `weather`.
    return live_name in (card.name, card.name.rsplit("/", 1)[-1])


def compare_live(card: Card, live: LiveView, *, reached_by_card: bool) -> list[Difference]:
    """What the card says that the live server does not bear out."""
    info = live.server_info
    found: list[Difference] = []
    if not _name_matches(card, info):
        found.append(
            Difference(
                "name", card.name, info.get("name"), "serverInfo.name is neither the card's name nor its last part"
            )
        )
    if card.title is not None and isinstance(info.get("title"), str) and info["title"] != card.title:
        found.append(Difference("title", card.title, info["title"]))
    if card.version != info.get("version"):
        found.append(Difference("version", card.version, info.get("version")))
    if not reached_by_card:
        found.extend(_transport_differences(card, live))
    tools = card.tools
    if tools is not None and live.tools is not None:
        missing = [name for name in tools if name not in live.tools]
        extra = [name for name in live.tools if name not in tools]
        if missing:
            found.append(Difference("tools missing from the server", missing, None))
        if extra:
            found.append(Difference("tools the card does not list", None, extra))
    return found


def _transport_differences(card: Card, live: LiveView) -> list[Difference]:
    if live.url is None:
        declared = card.package_transports
        if "stdio" not in declared:
            return [Difference("transport", declared or None, "stdio", "no package of the card runs over stdio")]
        return []
    offered: list[tuple[str | None, str | None]] = [(remote.transport, remote.url) for remote in card.remotes]
    offered += [(TRANSPORTS.get(kind), None) for kind in card.package_transports if kind != "stdio"]
    for transport, url in offered:
        if transport == live.transport and (url is None or url.rstrip("/") == live.url.rstrip("/")):
            return []
    listed = [f"{remote.type} {remote.url}" for remote in card.remotes] or None
    return [Difference("transport", listed, f"{live.transport} {live.url}", "the card lists no such remote")]
