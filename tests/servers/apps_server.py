"""A stdio server (our raw style) with MCP Apps tools (extension
io.modelcontextprotocol/ui), which writes every request it gets to a log file
(argv[1], if given) so a test sees the capabilities it was offered and what
was read, and when.

- `weather`: `_meta.ui.resourceUri` ui://apps/weather, visibility model+app;
  the resource declares a connect domain and is served as text.  Called
  with `city`, it answers text and structuredContent naming the city.
- `refresh`: app-only (`visibility: ["app"]`), same resource; answers "refreshed".
- `model_only`: `visibility: ["model"]` (an app must not call it).
- `failing`: same resource; every call is answered with a JSON-RPC error.

`resources/read` of ui://apps/never is never answered.
- `slow_ui`: its resource is ui://apps/never (a preview that never gets its HTML).
- `legacy_ui`: the deprecated flat `_meta["ui/resourceUri"]`, served as a blob.
- `plain`: no UI.
- `hostile_ui`: terminal escapes in its resourceUri and visibility.
"""

from __future__ import annotations

import base64
import os
import sys
from collections.abc import Callable
from typing import Any

MIME = "text/html;profile=mcp-app"
# A real (small) view: the handshake, the tool's input and result written
# into the page, then a tools/call of its own; it answers the teardown.
WEATHER_HTML = """<!DOCTYPE html><html><body><h1>Weather app</h1><pre id="log"></pre><script>
const say = (line) => { document.getElementById("log").textContent += line + "\\n"; };
const post = (message) => window.parent.postMessage(Object.assign({jsonrpc: "2.0"}, message), "*");
window.addEventListener("message", (event) => {
  const m = event.data;
  if (m.id === 1 && m.result) post({method: "ui/notifications/initialized", params: {}});
  else if (m.method === "ui/notifications/tool-input") say("input " + JSON.stringify(m.params.arguments));
  else if (m.method === "ui/notifications/tool-result") {
    say("result " + JSON.stringify(m.params.structuredContent));
    post({id: 2, method: "tools/call", params: {name: "refresh", arguments: {}}});
  }
  else if (m.id === 2) say("refresh " + JSON.stringify(m.result || m.error));
  else if (m.method === "ui/resource-teardown") post({id: m.id, result: {}});
});
post({id: 1, method: "ui/initialize", params: {appInfo: {name: "weather", version: "1"}, appCapabilities: {},
      protocolVersion: "2026-01-26"}});
</script></body></html>
"""
LEGACY_HTML = "<!DOCTYPE html><html><body><p>Legacy app</p></body></html>"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "weather",
        "description": "Weather with a dashboard",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        "_meta": {"ui": {"resourceUri": "ui://apps/weather", "visibility": ["model", "app"]}},
    },
    {
        "name": "refresh",
        "description": "Refresh the dashboard",
        "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": "ui://apps/weather", "visibility": ["app"]}},
    },
    {
        "name": "model_only",
        "description": "Only the model may call it",
        "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": "ui://apps/weather", "visibility": ["model"]}},
    },
    {
        "name": "failing",
        "description": "Always fails",
        "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": "ui://apps/weather"}},
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
    {
        "name": "slow_ui",
        "description": "Its UI resource is never served",
        "inputSchema": {"type": "object"},
        "_meta": {"ui": {"resourceUri": "ui://apps/never"}},
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


def call(name: str, arguments: Any) -> dict[str, Any]:
    if name == "weather":
        city = arguments.get("city", "nowhere") if isinstance(arguments, dict) else "nowhere"
        return {
            "content": [{"type": "text", "text": f"Sunny in {city}"}],
            "structuredContent": {"city": city, "temperature": 21},
        }
    return {"content": [{"type": "text", "text": "refreshed" if name == "refresh" else f"called {name}"}]}


def initialize(params: dict[str, Any]) -> dict[str, Any] | None:
    return {
        "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
            "serverInfo": {"name": "apps-server", "version": "1.0.0"},
        }
    }


def read_resource(params: dict[str, Any]) -> dict[str, Any] | None:
    if params.get("uri") == "ui://apps/never":
        return None  # never answered: a request that stays in flight
    result = read(str(params.get("uri")))
    if result is None:
        return {"error": {"code": -32602, "message": "unknown resource"}}
    return {"result": result}


def call_tool(params: dict[str, Any]) -> dict[str, Any] | None:
    if params.get("name") == "failing":
        return {"error": {"code": -32603, "message": "the weather service is down"}}
    return {"result": call(str(params.get("name")), params.get("arguments"))}


# Each method's answer; any other is not found.
ANSWERS: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    "initialize": initialize,
    "tools/list": lambda params: {"result": {"tools": TOOLS}},
    "resources/list": lambda params: {
        "result": {"resources": [{"uri": "ui://apps/weather", "name": "weather", "mimeType": MIME}]}
    },
    "resources/templates/list": lambda params: {"result": {"resourceTemplates": []}},
    "prompts/list": lambda params: {"result": {"prompts": []}},
    "resources/read": read_resource,
    "tools/call": call_tool,
    "ping": lambda params: {"result": {}},
}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any] | None:
    answered = ANSWERS.get(method)
    if answered is None:
        return {"error": {"code": -32601, "message": "Method not found"}}
    return answered(params)


def main() -> int:
    # Beside this file, whether run as a script or through runpy.run_path.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from line_loop import serve

    return serve(answer, sys.argv[1] if len(sys.argv) > 1 else None)


if __name__ == "__main__":
    sys.exit(main())
