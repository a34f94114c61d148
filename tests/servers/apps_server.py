"""A stdio server (our raw style) with MCP Apps tools (extension
io.modelcontextprotocol/ui), which writes every request it gets to a log file
(argv[1], if given) so a test sees the capabilities it was offered and what
was read, and when.

- `weather`: `_meta.ui.resourceUri` ui://apps/weather, visibility model+app;
  the resource declares a connect domain and is served as text.
- `refresh`: app-only (`visibility: ["app"]`), same resource.
- `legacy_ui`: the deprecated flat `_meta["ui/resourceUri"]`, served as a blob.
- `plain`: no UI.
- `hostile_ui`: terminal escapes in its resourceUri and visibility.
"""

from __future__ import annotations

import base64
import os
import sys
from typing import Any

MIME = "text/html;profile=mcp-app"
WEATHER_HTML = (
    "<!DOCTYPE html><html><body><h1>Weather app</h1><script>"
    'window.parent.postMessage({jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {}}, "*");'
    "</script></body></html>"
)
LEGACY_HTML = "<!DOCTYPE html><html><body><p>Legacy app</p></body></html>"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "weather",
        "description": "Weather with a dashboard",
        "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": "ui://apps/weather", "visibility": ["model", "app"]}},
    },
    {
        "name": "refresh",
        "description": "Refresh the dashboard",
        "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": "ui://apps/weather", "visibility": ["app"]}},
    },
    {
        "name": "legacy_ui",
        "description": "Uses the deprecated key",
        "inputSchema": {"type": "object"},
        "_meta": {"ui/resourceUri": "ui://apps/legacy"},
    },
    {"name": "plain", "description": "No UI", "inputSchema": {"type": "object"}},
    {
        "name": "hostile_ui",
        "description": "Escapes in its UI metadata",
        "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": "ui://apps/\x1b]0;pwned\x07x", "visibility": ["\x1b[31mred"]}},
    },
]


def read(uri: str) -> dict[str, Any] | None:
    if uri == "ui://apps/weather":
        meta = {"ui": {"csp": {"connectDomains": ["https://api.example.test"]}, "prefersBorder": True}}
        return {"contents": [{"uri": uri, "mimeType": MIME, "text": WEATHER_HTML, "_meta": meta}]}
    if uri == "ui://apps/legacy":
        blob = base64.b64encode(LEGACY_HTML.encode()).decode()
        return {"contents": [{"uri": uri, "mimeType": MIME, "blob": blob}]}
    return None


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return {
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
                "serverInfo": {"name": "apps-server", "version": "1.0.0"},
            }
        }
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "resources/list":
        return {"result": {"resources": [{"uri": "ui://apps/weather", "name": "weather", "mimeType": MIME}]}}
    if method == "resources/templates/list":
        return {"result": {"resourceTemplates": []}}
    if method == "prompts/list":
        return {"result": {"prompts": []}}
    if method == "resources/read":
        result = read(str(params.get("uri")))
        if result is None:
            return {"error": {"code": -32602, "message": "unknown resource"}}
        return {"result": result}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": "Method not found"}}


def main() -> int:
    # Beside this file, whether run as a script or through runpy.run_path.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from line_loop import serve

    return serve(answer, sys.argv[1] if len(sys.argv) > 1 else None)


if __name__ == "__main__":
    sys.exit(main())
