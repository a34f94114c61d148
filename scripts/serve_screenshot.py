"""Regenerate screenshots/serve-browser.png: `inspector serve` as a browser shows it.

    .venv/bin/python scripts/serve_screenshot.py

Starts `inspector serve --port 0` on the demo server, opens its URL (token
included) in Debian's headless Chromium (`apt-get install chromium`, and
`fonts-symbola` for the symbols the header uses: without a font that has
them the browser draws empty boxes), waits
until the TUI has drawn the demo's tools and the page has gone quiet, and
saves a PNG.  Chromium is driven over its DevTools protocol with aiohttp's
websocket client (already a dependency of `serve`).  No test needs Chromium;
tests/test_serve.py checks the same page and websocket with an HTTP client.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
URL = re.compile(r"serving the TUI on (http://\S+)")
# What the demo's first screen shows once its tool list has arrived.
DRAWN = ("echo", "divide", "weather_report")
# How long the page must receive nothing before it counts as drawn.
QUIET_MS = 1500

# Collects the text the TUI sends over the page's websocket, so the script
# can tell when the screen holds the tools (the terminal draws on a canvas).
WATCH_WEBSOCKET = """
(() => {
  const Original = window.WebSocket;
  const decoder = new TextDecoder();
  window.__tuiText = "";
  window.__tuiLast = 0;
  const seen = (text) => { window.__tuiText += text; window.__tuiLast = performance.now(); };
  window.WebSocket = class extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const data = event.data;
        if (typeof data === "string") seen(data);
        else if (data instanceof ArrayBuffer) seen(decoder.decode(data, { stream: true }));
        else if (data instanceof Blob) data.text().then(seen);
      });
    }
  };
})();
"""


@contextlib.contextmanager
def started(argv: list[str], **options: Any) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(argv, start_new_session=True, **options)
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def wait_for(what: str, check: Any, timeout: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise SystemExit(f"serve_screenshot: gave up waiting for {what}")


class DevTools:
    """Just enough of the Chrome DevTools protocol: a command and its answer."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.ids = itertools.count(1)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self.ids)
        await self.ws.send_json({"id": number, "method": method, "params": params})
        while True:
            message = await self.ws.receive_json(timeout=120)
            if message.get("id") == number:
                if "error" in message:
                    raise SystemExit(f"serve_screenshot: {method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    async def evaluate(self, expression: str) -> Any:
        answer = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return answer.get("result", {}).get("value")


async def shoot(page_url: str, devtools_port: int, size: tuple[int, int]) -> bytes:
    """The page as a PNG, once the TUI has drawn the demo's tools."""
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{devtools_port}/json/list") as response:
            targets = await response.json()
        page = next(target for target in targets if target.get("type") == "page")
        async with session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            tools = DevTools(ws)
            await tools.send("Page.enable")
            await tools.send(
                "Emulation.setDeviceMetricsOverride", width=size[0], height=size[1], deviceScaleFactor=1, mobile=False
            )
            await tools.send("Page.addScriptToEvaluateOnNewDocument", source=WATCH_WEBSOCKET)
            await tools.send("Page.navigate", url=page_url)
            deadline = time.monotonic() + 120
            wanted = " && ".join(f"window.__tuiText.includes({word!r})" for word in DRAWN)
            quiet = f"performance.now() - window.__tuiLast > {QUIET_MS}"
            ready = f"(typeof window.__tuiText === 'string') && {wanted} && {quiet}"
            while not await tools.evaluate(ready):
                if time.monotonic() > deadline:
                    raise SystemExit("serve_screenshot: the TUI never drew the demo's tools in the browser")
                await asyncio.sleep(0.2)
            shot = await tools.send("Page.captureScreenshot", format="png")
    return base64.b64decode(shot["data"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots" / "serve-browser.png")
    parser.add_argument("--size", default="1280x800", help="the browser window, WIDTHxHEIGHT")
    args = parser.parse_args(argv)
    width, height = (int(n) for n in args.size.split("x"))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("serve_screenshot: needs Chromium (Debian: apt-get install chromium fonts-symbola)")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    }
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "serve.log"
        profile = Path(scratch) / "profile"
        with (
            log.open("wb") as out,
            started(
                [sys.executable, "-m", "inspector", "serve", "--port", "0"],
                stdout=out,
                stderr=out,
                env=env,
                cwd=scratch,
            ),
        ):
            found = wait_for("inspector serve to print its URL", lambda: URL.search(log.read_text(errors="replace")))
            browser = [
                chromium,
                "--headless",
                # Root in a container has no user namespace for the sandbox.
                *(["--no-sandbox"] if os.geteuid() == 0 else []),
                "--disable-gpu",
                # Nothing leaves the machine: no QUIC, no update, sync or background fetches.
                "--disable-quic",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                "--remote-debugging-port=0",
                f"--window-size={width},{height}",
                "about:blank",
            ]
            with started(browser, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
                active = profile / "DevToolsActivePort"
                port = int(
                    wait_for("Chromium's DevTools port", lambda: active.exists() and active.read_text().split()[:1])[0]
                )
                png = asyncio.run(shoot(found.group(1), port, (width, height)))
    args.out.write_bytes(png)
    shown = args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out
    print(shown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
