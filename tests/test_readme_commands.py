"""Every `inspector …` command the README shows, run as written.

The commands are read from the README's `sh` blocks, so a command added
there is tested here without anyone remembering to.  Each runs in a
workspace that holds what the README's examples name: `my_server.py`,
`server.py`, `v1.py`/`v2.py` (Python SDK servers), `skills_server.py`,
`apps_server.py` and `directory_tree.py` (ours), `server.js` (the
reference TypeScript server), `./server`, `src/`, and the recordings
`session.jsonl`, `before.jsonl`, `after.jsonl`, and the collection
`checks.yaml` (the README's own collection block), and `examples/` (the
project's walkthrough files); `python` is this
interpreter and `npx` finds the reference server in the workspace's
`node_modules` (no network).  Only what cannot exist on a machine without
internet is replaced, and the table below says how: the example ports
become free ports of real servers, and `https://mcp.example.com/mcp` (and
the config entry `github`) become an OAuth-protected server on loopback,
logged into through `$BROWSER` as a person's browser would.

Scripting commands must exit 0 (or the exit code their comment names:
lint's findings, diff's differences); TUI commands must draw their first
screen in tmux and quit on ctrl+q.  (The polling loops wait for a state,
bounded only against a hang.)
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from inspector.commands import exitcodes

from .peers import EVERYTHING, NODE, PEERS, PYTHON, ROOT, SERVERS, free_port, require, serving, wait_for_port
from .readme_demo import run_walkthrough
from .terminal import interruptible
from .test_readme_servers import readme_servers_json
from .tmux_session import tmux_running
from .waiting import eventually_sync

README = ROOT / "README.md"
SCRIPTING = {
    "info",
    "list",
    "call",
    "read",
    "get",
    "lint",
    "servers",
    "auth",
    "diff",
    "replay",
    "demo-server",
    "test",
    "skills",
    "matrix",
    "card",
    "load",
    "app",
}
# What a scripting command may exit with besides 0, by subcommand.
ALSO_ACCEPTED = {
    "lint": {exitcodes.LINT_FINDINGS},
    "diff": {exitcodes.DIFFERENCES},
    "matrix": {exitcodes.DIFFERENCES},
}

SDK_SERVER = '''\
"""A small server written with the official Python SDK, for the README's examples."""
from mcp.server.mcpserver import MCPServer

server = MCPServer(name="readme-example")


@server.tool(description="Search the notes.")
def search(query: str, limit: int = 10) -> list[str]:
    return [f"{query} #{n}" for n in range(min(limit, 3))]


@server.resource("notes://all", description="Every note.")
def notes() -> str:
    return "one note"


@server.prompt(description="Say hello.")
def hello(name: str) -> str:
    return f"Hello {name}"


server.run()
'''


def readme_commands() -> list[str]:
    """Each `inspector …` line of the README's sh blocks, its comment cut off."""
    text = README.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            if line.startswith("inspector"):
                commands.append(re.sub(r"\s+#.*$", "", line).strip())
    return commands


def readme_collection() -> str:
    """The collection file the README shows (its `yaml` block), which its `inspector test` lines run."""
    blocks = re.findall(r"```yaml\n(# checks\.yaml.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "the README shows one collection file"
    return str(blocks[0])


def expanded(command: str) -> list[str]:
    """`[--http PORT | --sse PORT]` is a choice: each choice is a command."""
    choice = re.search(r"\[([^\]]+)\]", command)
    if choice is None:
        return [command]
    head, tail = command[: choice.start()], command[choice.end() :]
    forms = [f"{head}{tail}".strip()]
    forms += [f"{head}{option.strip()}{tail}".strip() for option in choice.group(1).split("|")]
    return forms


@dataclass
class Workspace:
    path: Path
    env: dict[str, str]
    everything_port: int
    auth_url: str


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    path = tmp_path_factory.mktemp("readme")
    bin_dir = path / "bin"
    bin_dir.mkdir()
    # `python` in the examples is the person's interpreter: here, this one.
    # (a wrapper, not a symlink: a symlink would lose the virtualenv).
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python").chmod(0o755)
    (bin_dir / "inspector").write_text(f'#!/bin/sh\nexec "{PYTHON}" -m inspector "$@"\n')
    (bin_dir / "inspector").chmod(0o755)
    for name in ("my_server.py", "server.py"):
        (path / name).write_text(SDK_SERVER)
    for release in (1, 2):
        (path / f"v{release}.py").write_text(
            "import runpy, sys\n"
            f"sys.argv[1:] = ['--release', '{release}']\n"
            f"runpy.run_path({str(SERVERS / 'versioned.py')!r}, run_name='__main__')\n"
        )
    (path / "server.js").write_text(
        "// The reference TypeScript server, as a project's own server.js would start it.\n"
        'process.argv.splice(2, process.argv.length, "stdio");\n'
        f"import(require('url').pathToFileURL({json.dumps(str(require(EVERYTHING)))}).href);\n"
    )
    # The README's skills examples: a server that serves skills (SEP-2640).
    (path / "skills_server.py").write_text(
        f"import runpy\nrunpy.run_path({str(SERVERS / 'skills_server.py')!r}, run_name='__main__')\n"
    )
    # The README's directory examples: a server that lists directory resources.
    (path / "directory_tree.py").write_text(
        f"import runpy, sys\nsys.path.insert(0, {str(SERVERS)!r})\n"
        f"runpy.run_path({str(SERVERS / 'directory_tree.py')!r}, run_name='__main__')\n"
    )
    # The README's MCP Apps examples: a server whose tool has a ui:// app.
    (path / "apps_server.py").write_text(
        f"import runpy\nrunpy.run_path({str(SERVERS / 'apps_server.py')!r}, run_name='__main__')\n"
    )
    # `--open` sends this fake browser, which fetches the page and notes it.
    (path / "fake-browser").write_text(f'#!/bin/sh\nexec "{PYTHON}" "{SERVERS / "fake_browser.py"}" "$@"\n')
    (path / "fake-browser").chmod(0o755)
    (path / "server").write_text('#!/bin/sh\nexec python my_server.py "$@"\n')
    (path / "server").chmod(0o755)
    (path / "src").mkdir()
    (path / "checks.yaml").write_text(readme_collection())
    # The README's walkthrough examples play the project's own example files.
    shutil.copytree(ROOT / "examples", path / "examples")
    # The config file of "Several servers in one window" (the README's json block).
    (path / "servers.json").write_text(readme_servers_json())
    (path / "node_modules").symlink_to(PEERS)
    browser = path / "fake-browser"
    browser.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{SERVERS / "fake_browser.py"}" "$@"\n')
    browser.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(path / "home"),
        "INSPECTOR_CONFIG_DIR": str(path / "config"),
        "INSPECTOR_TOKEN_STORE": "file",
        "BROWSER": str(browser),
        "INSPECTOR_IMAGES": "cells",
    }
    (path / "home").mkdir()
    everything_port, auth_port = free_port(), free_port()
    auth_url = f"http://127.0.0.1:{auth_port}/mcp"
    # A project config file: `servers`, `--pick` and `auth status github` find it.
    (path / ".mcp.json").write_text(json.dumps({"mcpServers": {"github": {"type": "http", "url": auth_url}}}))
    with (
        serving([NODE, str(require(EVERYTHING)), "streamableHttp"], everything_port, {"PORT": str(everything_port)}),
        serving([PYTHON, str(SERVERS / "auth_server.py"), "--port", str(auth_port)], auth_port),
    ):
        ws = Workspace(path, env, everything_port, auth_url)
        for recording, argv in (
            ("session.jsonl", ["call", "search", "query=x", "--yes", "--", "python", "server.py"]),
            ("before.jsonl", ["list", "tools", "--", "python", "v1.py"]),
            ("after.jsonl", ["list", "tools", "--", "python", "v2.py"]),
        ):
            made = run(ws, ["inspector", "--record", recording, *argv])
            assert made.returncode == 0, made.stderr
        write_card(ws)
        yield ws


def write_card(ws: Workspace) -> None:
    """`server.json`: the registry card of the README's `server.py`, as its author would publish it."""
    info = run(ws, ["inspector", "info", "--json", "--", "python", "server.py"])
    assert info.returncode == 0, info.stderr
    server = json.loads(info.stdout)["serverInfo"]
    card = {
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": f"io.github.example/{server['name']}",
        "description": "Search the notes.",
        "version": server["version"],
        "packages": [
            {"registryType": "pypi", "identifier": "readme-example", "version": "1.0.0", "transport": {"type": "stdio"}}
        ],
        "tools": ["search"],
    }
    (ws.path / "server.json").write_text(json.dumps(card))


def localised(command: str, ws: Workspace) -> str:
    """The README's placeholders for machines this test cannot reach, made real."""
    command = re.sub(r"(http://(?:127\.0\.0\.1|localhost)):3001/", rf"\1:{ws.everything_port}/", command)
    return command.replace("https://mcp.example.com/mcp", ws.auth_url)


def run(
    ws: Workspace, argv: list[str], stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=ws.path, env=ws.env, input=stdin, capture_output=True, text=True, timeout=timeout, check=False
    )


def run_demo_server(ws: Workspace, argv: list[str]) -> None:
    if "--http" in argv or "--sse" in argv:
        port = free_port()
        argv = [port_arg if port_arg != "PORT" else str(port) for port_arg in argv]
        with subprocess.Popen(argv, cwd=ws.path, env=ws.env, stderr=subprocess.DEVNULL) as process:
            try:
                # A generous bound: the server imports the SDK and uvicorn first.
                wait_for_port(port, process, timeout=90)
            finally:
                process.terminate()
                process.wait(10)
        return
    # Over stdio: a client's initialize is answered, and end of input ends it.
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    done = run(ws, argv, stdin=json.dumps(hello) + "\n")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "inspector-demo"


_RUNS = itertools.count()


def run_tui(ws: Workspace, argv: list[str]) -> None:
    """In tmux, as a person's terminal: the first screen is drawn (its key bar
    offers Quit), and ctrl+q ends the program with exit 0."""
    name = f"readme-{os.getpid()}-{next(_RUNS)}"
    with tmux_running(argv, ws.env, ws.path, name, (100, 30)) as run:

        def drawn_or_ended() -> bool:
            return "Quit" in run.capture() or run.status.exists()

        # A generous bound: a fresh TUI imports Textual and starts the demo server first.
        eventually_sync(drawn_or_ended, "the first screen", timeout=90, poll=0.2)
        assert "Quit" in run.screen, run.screen
        assert "Traceback" not in run.screen, run.screen
        run.quit_with_ctrl_q()


SERVED = re.compile(r"serving the TUI on (http://127\.0\.0\.1:\d+)/([A-Za-z0-9_-]+)/")


@contextlib.contextmanager
def serving_until_ctrl_c(
    argv: list[str], ws: Workspace, env: dict[str, str], log: Path, url: re.Pattern[str], what: str
) -> Iterator[tuple[subprocess.Popen[bytes], re.Match[str]]]:
    """A command that serves until ctrl+c, started in the workspace, once it has printed its URL
    (`url` found in its output, in `log`); killed at the end if it is still running."""
    with log.open("wb") as out:
        # Ended with SIGINT, as ctrl+c ends it in a shell's foreground job: a test
        # runner's worker may ignore SIGINT, and the command would inherit that.
        process = subprocess.Popen(
            argv, cwd=ws.path, env=env, stdout=out, stderr=subprocess.STDOUT, preexec_fn=interruptible
        )
    try:

        def announced() -> re.Match[str] | None:
            assert process.poll() is None, log.read_text(errors="replace")
            return url.search(log.read_text(errors="replace"))

        # A generous bound: the command imports aiohttp and Textual first.
        yield process, eventually_sync(announced, what, timeout=90, poll=0.2)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def assert_refused_without_token(base: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{base}/", timeout=60)
    # The error is the response too: closed here, or its socket outlives the test.
    refused.value.close()
    assert refused.value.code == 403


def run_serve(ws: Workspace, argv: list[str]) -> None:
    """As a person runs it: the printed URL serves the page, nothing is served
    without its token, and ctrl+c ends it with exit 0.  The example port
    becomes any free one (`--port 0`), which serve prints."""
    argv = ["0" if before == "--port" else word for before, word in zip(["", *argv[:-1]], argv, strict=True)]
    log = ws.path / f"serve-{next(_RUNS)}.log"
    with serving_until_ctrl_c(argv, ws, ws.env, log, SERVED, "serve to print its URL") as (process, found):
        base, token = found.group(1), found.group(2)
        with urllib.request.urlopen(f"{base}/{token}/", timeout=60) as page:
            assert page.status == 200
            assert f"/{token}/ws" in page.read().decode()
        assert_refused_without_token(base)
        process.send_signal(signal.SIGINT)
        assert process.wait(60) == 0, log.read_text(errors="replace")


# Printed as a line on a terminal, as JSON (`"url": ...`) into a file.
PREVIEWED = re.compile(r"(http://127\.0\.0\.1:\d+)/([A-Za-z0-9_./-]+)")


def run_app_preview(ws: Workspace, argv: list[str]) -> None:
    """As a person runs it: the printed URL serves the app's host page,
    nothing is served without its token, `--open` sends the browser to that
    URL (a fake one here), and ctrl+c ends it (exit 130)."""
    log = ws.path / f"app-{next(_RUNS)}.log"
    opened = ws.path / f"opened-{next(_RUNS)}.txt"
    env = {**ws.env, "BROWSER": str(ws.path / "fake-browser"), "FAKE_BROWSER_LOG": str(opened)}
    with serving_until_ctrl_c(argv, ws, env, log, PREVIEWED, "the preview's URL") as (process, found):
        base, path = found.group(1), found.group(2)
        with urllib.request.urlopen(f"{base}/{path}", timeout=60) as page:
            assert page.status == 200
        assert_refused_without_token(base)
        if "--open" in argv:
            visits = eventually_sync(
                lambda: opened.exists() and opened.read_text().splitlines(), "the browser's visit", timeout=90
            )
            assert visits[0] == f"{base}/{path}"
        else:
            assert not opened.exists()
        process.send_signal(signal.SIGINT)
        assert process.wait(60) == exitcodes.INTERRUPTED, log.read_text(errors="replace")


def check_cast(path: Path) -> None:
    """The cast a README command wrote: asciinema v2, with what the TUI drew."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["version"] == 2 and header["width"] > 0 and header["height"] > 0
    events = [json.loads(line) for line in lines[1:]]
    assert "Quit" in "".join(text for _, kind, text in events if kind == "o")


COMMANDS = [form for command in readme_commands() for form in expanded(command)]


def test_the_readme_shows_commands() -> None:
    # The extraction works: the README's command blocks are found.
    assert len(COMMANDS) > 20
    assert "inspector lint --rules" in COMMANDS


@pytest.mark.timeout(300)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_readme_command_works_as_written(command: str, workspace: Workspace) -> None:
    argv = shlex.split(localised(command, workspace))
    words = [word for word in argv[1:] if not word.startswith("-")]
    subcommand = argv[1] if len(argv) > 1 and not argv[1].startswith("-") else None
    if subcommand is None and words and words[0] in SCRIPTING:
        subcommand = words[0]  # after a global switch (`inspector --advertise-apps list tools`)
    if subcommand == "demo-server":
        run_demo_server(workspace, argv)
        return
    if subcommand == "serve":
        run_serve(workspace, argv)
        return
    if subcommand == "app":
        run_app_preview(workspace, argv)
        return
    if subcommand == "demo":
        run_walkthrough(workspace.path, workspace.env, argv, f"readme-{os.getpid()}-{next(_RUNS)}")
        return
    if subcommand not in SCRIPTING:
        # No subcommand (or `open`): the TUI.
        assert subcommand in (None, "open", "tui"), words
        run_tui(workspace, argv)
        if "--record-cast" in argv:
            check_cast(workspace.path / argv[argv.index("--record-cast") + 1])
        return
    # A matrix starts a server per column (nine for a URL): a longer bound, still only a hang's.
    done = run(workspace, argv, timeout=280 if subcommand == "matrix" else 120)
    assert "Traceback" not in done.stderr, done.stderr
    accepted = {exitcodes.OK} | ALSO_ACCEPTED.get(subcommand, set())
    assert done.returncode in accepted, f"exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
