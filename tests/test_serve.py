"""`inspector serve`: the TUI over HTTP and a websocket, behind a token.

A real `inspector serve --port 0` on loopback and a real HTTP client: every
request without the token (page, asset, websocket) is refused before
anything runs; with it the page is served and its websocket carries the
TUI, run here on the server that `serve` was given.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import signal
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from .peers import PYTHON, SERVERS
from .waiting import HANG, eventually, eventually_sync

URL = re.compile(r"serving the TUI on (http://127\.0\.0\.1:(\d+)/([A-Za-z0-9_-]+)/)")


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    url: str  # the page, token included
    base: str  # scheme, host and port
    token: str
    log: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with start_serve(tmp_path_factory.mktemp("serve"), []) as serve:
        yield serve


@pytest.fixture(scope="module")
def served_command(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`serve` given a TUI option and a stdio server, as `inspector` would be."""
    argv = ["--record-cast", "visit.cast", "--", PYTHON, str(SERVERS / "exact_args.py")]
    with start_serve(tmp_path_factory.mktemp("serve-cmd"), argv) as serve:
        yield serve


@pytest.fixture(scope="module")
def served_two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`serve --config FILE`: the file's two servers in one window, per visit."""
    folder = tmp_path_factory.mktemp("serve-two")
    entries = {
        "exact": {"command": PYTHON, "args": [str(SERVERS / "exact_args.py")]},
        "crashing": {"command": PYTHON, "args": [str(SERVERS / "crashing_later.py")]},
    }
    (folder / "servers.json").write_text(json.dumps({"mcpServers": entries}))
    with start_serve(folder, ["--config", "servers.json"]) as serve:
        yield serve


class start_serve:
    def __init__(self, folder: Path, argv: list[str]) -> None:
        self.folder, self.argv = folder, argv

    def __enter__(self) -> Served:
        log = self.folder / "serve.log"
        self.errors = self.folder / "serve.err"
        with log.open("wb") as out, self.errors.open("wb") as err:
            self.process = subprocess.Popen(
                [PYTHON, "-m", "inspector", "serve", "--port", "0", *self.argv],
                stdout=out,
                stderr=err,
                cwd=self.folder,
                start_new_session=True,
            )

        def announced() -> re.Match[str] | None:
            if self.process.poll() is not None:
                raise AssertionError(f"serve exited with {self.process.returncode}: {self.errors.read_text()}")
            return URL.search(log.read_text(errors="replace"))

        # Bounded only against a hang: serve imports aiohttp and Textual first.
        found = eventually_sync(announced, "serve to print its URL", timeout=90, poll=0.1)
        url, port, token = found.group(1), found.group(2), found.group(3)
        return Served(self.process, url, f"http://127.0.0.1:{port}", token, log)

    def __exit__(self, *exc: object) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (the app processes a visit starts, and their servers)."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        found += map(int, children)
        todo += map(int, children)
    return found


def wrong_tokens(token: str) -> list[str]:
    return ["x" * len(token), token[:-1], token + "x", token.upper() if token.upper() != token else token.lower()]


@pytest.mark.parametrize("path", ["/", "/ws", "/static/js/textual.js", "/static/css/xterm.css", "/download/x"])
async def test_without_the_token_nothing_is_served(served: Served, path: str) -> None:
    async with aiohttp.ClientSession() as session:
        for prefix in ["", *(f"/{wrong}" for wrong in wrong_tokens(served.token))]:
            async with session.get(served.base + prefix + path, allow_redirects=False) as response:
                assert response.status == 403, (prefix, path, response.status)
                assert "textual" not in (await response.text()).lower()


async def test_with_the_token_the_page_and_its_assets_are_served(served: Served) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(served.url) as response:
            assert response.status == 200
            page = await response.text()
        # The page's websocket and assets sit behind the same token.
        assert f'data-session-websocket-url="ws://127.0.0.1:{served.base.rsplit(":", 1)[1]}/{served.token}/ws"' in page
        assert f"/{served.token}/static/js/textual.js" in page
        async with session.get(f"{served.url}static/js/textual.js") as response:
            assert response.status == 200
            assert len(await response.read()) > 1000


async def test_the_websocket_is_refused_without_the_token_and_starts_nothing(served: Served) -> None:
    async with aiohttp.ClientSession() as session:
        for prefix in ["", *(f"/{wrong}" for wrong in wrong_tokens(served.token))]:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(f"{served.base}{prefix}/ws?width=80&height=24")
            assert refused.value.status == 403
    assert descendants(served.process.pid) == []


async def tui_over_websocket(served: Served, wanted: list[str]) -> str:
    """Open the page's websocket as the page's script does and collect what the
    TUI draws until every `wanted` text was seen; then leave the page."""
    seen = ""
    async with aiohttp.ClientSession() as session:
        ws = await session.ws_connect(f"{served.url}ws?width=120&height=40")
        try:

            async def drawn() -> bool:
                nonlocal seen
                message = await ws.receive(timeout=HANG)
                if message.type == aiohttp.WSMsgType.BINARY:
                    seen += message.data.decode("utf-8", errors="replace")
                elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    raise AssertionError(f"the websocket closed before the TUI showed {wanted}: {seen[-2000:]}")
                return all(text in seen for text in wanted)

            # Each step waits for the next message: the loop ends when the TUI has drawn them all.
            while not await drawn():
                pass
        finally:
            await ws.close()
    return seen


async def test_with_the_token_the_websocket_carries_the_tui_on_the_demo(served: Served) -> None:
    seen = await tui_over_websocket(served, ["echo", "divide", "weather_report"])
    assert "Traceback" not in seen
    # Leaving the page ends its app process and the server it started.
    await eventually(lambda: descendants(served.process.pid) == [], "the visit's processes to end", timeout=90)


async def test_the_served_tui_gets_the_options_and_server_serve_was_given(served_command: Served) -> None:
    seen = await tui_over_websocket(served_command, ["log_query", "travel"])
    assert "weather_report" not in seen
    await eventually(lambda: descendants(served_command.process.pid) == [], "the visit's processes to end", timeout=90)
    # --record-cast went along: the visit's cast, at the size the page asked for.
    lines = (served_command.log.parent / "visit.cast").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert (header["version"], header["width"], header["height"]) == (2, 120, 40)
    assert "log_query" in "".join(json.loads(line)[2] for line in lines[1:])


async def test_a_visit_opens_every_server_of_the_config_in_one_window(served_two: Served) -> None:
    seen = await tui_over_websocket(served_two, ["1/2 exact", "servers", "crashing", "log_query"])
    assert "Traceback" not in seen
    await eventually(lambda: descendants(served_two.process.pid) == [], "the visit's processes to end", timeout=90)


def test_loopback_serving_gives_no_warning(served: Served) -> None:
    errors = (served.log.parent / "serve.err").read_text()
    assert "WARNING" not in errors


def test_a_non_loopback_address_is_warned_about(tmp_path: Path) -> None:
    # The port is held, so nothing ends up listening beyond loopback; the
    # warning comes before the attempt, and the failure is a usage error.
    with socket.socket() as holder:
        holder.bind(("0.0.0.0", 0))
        port = holder.getsockname()[1]
        done = subprocess.run(
            [PYTHON, "-m", "inspector", "serve", "--host", "0.0.0.0", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=tmp_path,
        )
    assert "WARNING: listening on 0.0.0.0, not on loopback" in done.stderr
    assert "plain HTTP" in done.stderr
    assert f"cannot listen on 0.0.0.0:{port}" in done.stderr
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_a_bad_server_option_is_refused_before_listening(tmp_path: Path) -> None:
    done = subprocess.run(
        [PYTHON, "-m", "inspector", "serve", "--port", "0", "--env", "NOEQUALS"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "serving the TUI" not in done.stdout


def listening_on(port: int) -> set[str]:
    """The addresses a TCP listener on `port` is bound to, from the kernel's
    own table (/proc/net/tcp and tcp6): what the page URL cannot tell."""
    found = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.split(":")
            if state != "0A" or int(hex_port, 16) != port:  # 0A: LISTEN
                continue
            raw = bytes.fromhex(address)
            # The kernel writes each 32-bit word in host (little-endian) order.
            words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            found.add(str(ipaddress.ip_address(words)) if len(address) == width else address)
    return found


def test_by_default_it_listens_on_loopback_only_with_a_fresh_random_token(
    served: Served, served_command: Served
) -> None:
    port = int(served.base.rsplit(":", 1)[1])
    assert listening_on(port) == {"127.0.0.1"}
    # 24 bytes from `secrets`, URL-safe: 32 characters, and another for every serve.
    assert len(served.token) == 32 and len(served_command.token) == 32
    assert served.token != served_command.token
