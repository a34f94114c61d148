from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.core.protocol.handlers import ClientHandlers
from inspector.core.protocol.server_requests import ServerRequest
from inspector.core.servers.spec import ServerSpec

from .peers import EVERYTHING, NODE, everything_http, require
from .pilot_patience import be_patient
from .waiting import HANG

# Textual's Pilot gives the screen's widgets a fixed 30 s to take in one
# message each, on every press and pause: a wall-clock assertion that a
# machine oversubscribed four times over breaks (one layout of a big form
# costs seconds of CPU there).  Our own waits are bounded by what only a hang
# reaches; the Pilot's is given the same bound.
be_patient()

# Some sandboxes set PYTHONDONTWRITEBYTECODE.  Then each of the suite's
# hundreds of Python processes (the inspector, the demo and test servers)
# compiles its modules from source again, and each pytest worker rewrites
# every test module's asserts anew: CPU seconds a worker, minutes a run.
# Bytecode caches are what an installed copy has (.gitignore keeps them out
# of the tree); the workers and every process a test starts inherit this.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
    sys.dont_write_bytecode = False


@pytest.fixture(autouse=os.environ.get("INSPECTOR_TEST_LEAKS") == "attribute")
def leaks_are_the_leakers() -> Iterator[None]:
    """With INSPECTOR_TEST_LEAKS=attribute, a pipe, socket, process or task left behind fails the test that left it.

    ResourceWarning is an error (filterwarnings), but Python reports an
    unclosed object only when the collector reaches it, so it surfaces in
    whatever test runs next on the worker.  A collection after every test
    puts it where it belongs, at a cost of minutes a run: on when a leak
    has to be found, off otherwise."""
    yield
    gc.collect()


class RecordingHandlers(ClientHandlers):
    """Answers the server's requests like a cooperative person, and remembers them."""

    supports_url_elicitation = True

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []
        self.roots = [{"uri": "file:///tmp/project", "name": "project"}]

    async def list_roots(self, request: ServerRequest) -> list[dict[str, Any]]:
        self.seen.append(("roots/list", request.params))
        return self.roots

    async def create_message(self, request: ServerRequest) -> dict[str, Any]:
        self.seen.append(("sampling/createMessage", request.params))
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "a reply typed by the test"},
            "model": "test-model",
            "stopReason": "endTurn",
        }

    async def elicit(self, request: ServerRequest) -> dict[str, Any]:
        self.seen.append(("elicitation/create", request.params))
        return {"action": "decline"}


@pytest.fixture
def handlers() -> RecordingHandlers:
    return RecordingHandlers()


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A configuration directory, and token store, of the test's own."""
    directory = tmp_path / "config"
    monkeypatch.setenv("INSPECTOR_CONFIG_DIR", str(directory))
    monkeypatch.delenv("INSPECTOR_TOKEN_STORE", raising=False)
    return directory


@pytest.fixture
def own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No config or token store of the person running the tests: the test's own, tokens in files."""
    monkeypatch.setenv("INSPECTOR_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("INSPECTOR_TOKEN_STORE", "file")


@pytest.fixture
def everything_stdio() -> ServerSpec:
    return ServerSpec(transport="stdio", command=NODE, args=[str(require(EVERYTHING)), "stdio"], timeout=HANG)


@pytest.fixture(scope="module")
def everything_http_url() -> Iterator[str]:
    with everything_http("streamableHttp") as url:
        yield url


@pytest.fixture(scope="module")
def everything_sse_url() -> Iterator[str]:
    with everything_http("sse") as url:
        yield url
