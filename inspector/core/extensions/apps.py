"""MCP Apps (extension `io.modelcontextprotocol/ui`, SEP-1865): what a tool
declares about its UI resource, what a client declares to get one, and how a
UI resource's HTML and security metadata are taken out of `resources/read`.

Nothing here fetches or serves anything: the preview (app_host, with the
host's side of the protocol in app_bridge) does that, and only when the
person asks.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "APPS_PROTOCOL_VERSION",
    "APP_MIME_TYPE",
    "EXTENSION",
    "SPEC_PAGE",
    "AppDocument",
    "ToolUi",
    "app_document",
    "client_declaration",
    "content_security_policy",
    "declared_origins",
    "tool_ui",
]

EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
SPEC_PAGE = "https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx"
# The extension's own protocol revision, answered to an app's ui/initialize.
APPS_PROTOCOL_VERSION = "2026-01-26"
DEFAULT_VISIBILITY = ("model", "app")
_DEPRECATED_KEY = "ui/resourceUri"


def client_declaration() -> JSONObject:
    """The extension's settings a host sends in capabilities.extensions."""
    return {"mimeTypes": [APP_MIME_TYPE]}


@dataclass
class ToolUi:
    """A tool's `_meta.ui` (or the deprecated flat `_meta["ui/resourceUri"]`)."""

    resource_uri: str | None
    visibility: list[str]
    visibility_given: bool
    deprecated_key: bool = False
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> JSONObject:
        """As JSON: the URI and visibility, and whether the visibility was defaulted, the deprecated key, problems."""
        value: JSONObject = {"resourceUri": self.resource_uri, "visibility": self.visibility}
        if not self.visibility_given:
            value["visibilityDefaulted"] = True
        if self.deprecated_key:
            value["deprecatedKey"] = _DEPRECATED_KEY
        if self.problems:
            value["problems"] = list(self.problems)
        return value

    def summary(self) -> str:
        """e.g. `ui://weather/dashboard (visibility: model, app; default)`."""
        uri = self.resource_uri if self.resource_uri is not None else "(no resourceUri)"
        visibility = ", ".join(self.visibility) or "none"
        note = "; default" if not self.visibility_given else ""
        text = f"{uri} (visibility: {visibility}{note})"
        if self.deprecated_key:
            text += f" [deprecated _meta[{_DEPRECATED_KEY!r}]]"
        return text


def tool_ui(tool: Any) -> ToolUi | None:
    """The UI a tool declares, or None when it declares none."""
    if not isinstance(tool, dict):
        return None
    meta = tool.get("_meta")
    if not isinstance(meta, dict):
        return None
    ui = meta.get("ui")
    flat = meta.get(_DEPRECATED_KEY)
    if ui is None and flat is None:
        return None
    problems: list[str] = []
    uri, deprecated = _resource_uri(ui, flat, problems)
    visibility, given = _visibility(ui.get("visibility") if isinstance(ui, dict) else None, problems)
    return ToolUi(uri, visibility, given, deprecated, problems)


def _resource_uri(ui: Any, flat: Any, problems: list[str]) -> tuple[str | None, bool]:
    """The UI resource's URI (from `_meta.ui`, else the deprecated flat key) and
    whether it came from the deprecated key; what is wrong goes to `problems`."""
    uri: Any = None
    deprecated = False
    if isinstance(ui, dict):
        uri = ui.get("resourceUri")
    elif ui is not None:
        problems.append(f"_meta.ui is {type(ui).__name__}, not an object")
    if uri is None and flat is not None:
        uri, deprecated = flat, True
    if uri is not None and not isinstance(uri, str):
        problems.append(f"resourceUri is {type(uri).__name__}, not a string")
        uri = None
    if isinstance(uri, str) and not uri.startswith("ui://"):
        problems.append("resourceUri does not use the ui:// scheme")
    return uri, deprecated


def _visibility(raw: Any, problems: list[str]) -> tuple[list[str], bool]:
    """The visibility list and whether the tool gave it (the default when not, or not a list of strings)."""
    if raw is None:
        return list(DEFAULT_VISIBILITY), False
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        problems.append("visibility is not a list of strings")
        return list(DEFAULT_VISIBILITY), False
    unknown = [v for v in raw if v not in DEFAULT_VISIBILITY]
    if unknown:
        problems.append(f"unknown visibility value(s): {', '.join(unknown)}")
    return list(raw), True


@dataclass
class AppDocument:
    """The HTML of a UI resource and the security metadata it came with."""

    uri: str
    html: str
    mime_type: str | None
    ui_meta: JSONObject
    problems: list[str] = field(default_factory=list)


def app_document(uri: str, result: Any) -> AppDocument:
    """The app's HTML out of a resources/read result; ValueError when there is none."""
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list) or not contents:
        raise ValueError("the resources/read result has no contents")
    entries = [c for c in contents if isinstance(c, dict)]
    entry = next((c for c in entries if c.get("uri") == uri), entries[0] if entries else None)
    if entry is None:
        raise ValueError("the resources/read result has no content object")
    problems: list[str] = []
    mime = entry.get("mimeType")
    if mime != APP_MIME_TYPE:
        problems.append(f"mimeType is {mime!r}, the extension requires {APP_MIME_TYPE!r}")
    if entry.get("uri") != uri:
        problems.append(f"the content's uri {entry.get('uri')!r} is not the one read")
    text = entry.get("text")
    if isinstance(text, str):
        html = text
    elif isinstance(entry.get("blob"), str):
        try:
            html = base64.b64decode(entry["blob"], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise ValueError(f"the blob is not base64 UTF-8 HTML: {exc}") from exc
    else:
        raise ValueError("the content has neither text nor blob")
    meta = entry.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return AppDocument(entry.get("uri") or uri, html, mime if isinstance(mime, str) else None, ui or {}, problems)


def _origins(csp: JSONObject, key: str) -> list[str]:
    value = csp.get(key)
    if not isinstance(value, list):
        return []
    # An origin with a quote, semicolon or space would write its own directive.
    return [v for v in value if isinstance(v, str) and v and not any(c in v for c in " ;,'\"\r\n\t")]


CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")


def declared_origins(csp: JSONObject) -> dict[str, list[str]]:
    """The origins of a resource's `_meta.ui.csp` the preview lets through, by key."""
    return {key: origins for key in CSP_KEYS if (origins := _origins(csp, key))}


def content_security_policy(ui_meta: JSONObject) -> str:
    """The CSP a host must put on the view: the extension's restrictive
    default, opened only to the origins the resource declares."""
    csp = ui_meta.get("csp") if isinstance(ui_meta, dict) else None
    csp = csp if isinstance(csp, dict) else {}
    resources = " ".join(_origins(csp, "resourceDomains"))
    connect = " ".join(_origins(csp, "connectDomains")) or "'none'"
    frames = " ".join(_origins(csp, "frameDomains")) or "'none'"
    base = " ".join(_origins(csp, "baseUriDomains")) or "'self'"
    extra = f" {resources}" if resources else ""
    directives = [
        "default-src 'none'",
        f"script-src 'self' 'unsafe-inline'{extra}",
        f"style-src 'self' 'unsafe-inline'{extra}",
        f"img-src 'self' data:{extra}",
        f"media-src 'self' data:{extra}",
        f"font-src 'self'{extra}",
        f"connect-src {connect}",
        f"frame-src {frames}",
        f"base-uri {base}",
        "object-src 'none'",
    ]
    return "; ".join(directives)
