"""ServerSpec: everything needed to reach one server, whatever face asked."""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspector.core.auth.config import AuthConfig

__all__ = ["DEFAULT_MAX_MESSAGE_SIZE", "ServerSpec", "demo_spec", "parse_size"]

# Room for the 100 MB results the README promises, with a margin.
DEFAULT_MAX_MESSAGE_SIZE = 256 * 1024 * 1024


def parse_size(text: str) -> int:
    """Bytes from `1048576`, `64KiB`, `256MiB`, `1.5GB` (KB, MB, GB are powers of 1000)."""
    from pydantic import ByteSize, TypeAdapter, ValidationError

    try:
        size = int(TypeAdapter(ByteSize).validate_python(text))
    except ValidationError:
        raise ValueError(f"not a size: {text!r} (bytes, or a number with KiB, MiB, GiB, KB, MB or GB)") from None
    if size <= 0:
        raise ValueError(f"a size must be positive, got {text!r}")
    return size


@dataclass
class ServerSpec:
    """How to reach a server.

    transport: "stdio", "http" (Streamable HTTP only), "sse" (legacy HTTP+SSE
    only) or "auto" (a URL: Streamable HTTP first, falling back to legacy
    HTTP+SSE as the spec describes).
    """

    transport: str = "stdio"
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    inherit_env: bool = False
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    name: str | None = None
    protocol_version: str | None = None
    era: str = "auto"
    timeout: float | None = 60.0
    # The largest single message accepted from the server, in bytes (a stdio
    # line, an HTTP body, an SSE event); past it the server counts as broken.
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    # Handshake-era Streamable HTTP: open the optional GET stream for
    # messages the server sends outside any request.
    get_stream: bool = True
    is_demo: bool = False
    # The client config file this server came from, if any.
    config_path: str | None = None
    # Names of env/header values that are secrets (masked in recordings).
    secret_names: set[str] = field(default_factory=set)
    # Values that are secret whatever name they go by (a VS Code `password`
    # input), each with the environment variable a copied command names instead.
    secret_values: dict[str, str] = field(default_factory=dict)
    # Authorization of a remote server (OAuth settings and the live OAuth
    # session); None: requests go out as they are and a 401 is an error.
    auth: AuthConfig | None = None
    # Declare the MCP Apps extension (io.modelcontextprotocol/ui) in the
    # client capabilities; off unless the person asks (--advertise-apps).
    advertise_apps: bool = False

    def label(self) -> str:
        """A short name for the server: its name, "demo server", the URL, or the command line."""
        if self.name:
            return self.name
        if self.is_demo:
            return "demo server"
        if self.url:
            return self.url
        return shlex.join([self.command or "?", *self.args])

    def with_overrides(self, **changes: object) -> ServerSpec:
        """A copy with *changes* applied."""
        return replace(self, **changes)  # type: ignore[arg-type]


# The folder that holds the `inspector` package (this file is inspector/core/servers/spec.py).
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[3])


def demo_spec() -> ServerSpec:
    """The embedded demo server, run by this same interpreter over stdio."""
    return ServerSpec(
        transport="stdio",
        command=sys.executable,
        args=["-m", "inspector.demo"],
        # So the child finds this package even when it is run from a checkout.
        env={"PYTHONPATH": _PACKAGE_PARENT},
        name="inspector-demo",
        is_demo=True,
    )
