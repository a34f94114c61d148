"""Server specs from client configuration files.

Two shapes exist in the wild: `{"mcpServers": {name: entry}}` (Claude
Desktop, Claude Code, Cursor, Windsurf) and `{"servers": {name: entry}}`
(VS Code, which also has `inputs` for prompted values).  An entry is either
stdio (`command`, `args`, `env`, `cwd`) or remote (`url`, `headers`, and a
`type`/`transport` of `http`, `streamable-http`, `sse`; `oauth` settings).  `${VAR}` and
`${env:VAR}` are expanded from the environment.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.core.servers.spec import ServerSpec

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = [
    "Asker",
    "ConfigError",
    "Input",
    "claude_code_projects",
    "input_variable",
    "inputs_in",
    "load_config",
    "names_in_file",
    "server_names",
    "servers_in",
    "spec_from_entry",
    "spec_from_file",
    "workspace_for",
]

_VAR = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

_TRANSPORT_ALIASES = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamablehttp": "http",
    "streamable_http": "http",
    "sse": "sse",
}


class ConfigError(ValueError):
    """A configuration file or entry that cannot be used, with the reason.

    `inputs`: the VS Code inputs nobody answered (asking on a terminal, or
    setting their `INSPECTOR_INPUT_<ID>` variables, would make it usable);
    `partial`: the spec as far as it could be built, for showing its target.
    """

    def __init__(self, message: str, inputs: list[Input] | None = None, partial: ServerSpec | None = None) -> None:
        super().__init__(message)
        self.inputs = list(inputs or ())
        self.partial = partial


_INPUT = re.compile(r"\$\{input:([A-Za-z0-9_.-]+)\}")


def input_variable(input_id: str) -> str:
    """The environment variable that answers VS Code's `${input:ID}` prompt."""
    return "INSPECTOR_INPUT_" + re.sub(r"[^A-Z0-9]+", "_", input_id.upper()).strip("_")


@dataclass
class Input:
    """One of VS Code's `inputs`: a value asked of the person when an entry
    uses `${input:ID}` (`promptString`, `pickString` with `options`)."""

    id: str
    description: str = ""
    default: str | None = None
    password: bool = False
    options: list[str] = field(default_factory=list)

    @property
    def variable(self) -> str:
        """The environment variable that answers this input (`INSPECTOR_INPUT_<ID>`)."""
        return input_variable(self.id)


# Asks the person for an input's value; None when there is no answer (no
# terminal, end of input).  The CLI supplies one; the core never prompts.
Asker = Callable[[Input], str | None]


def inputs_in(data: JSONObject) -> dict[str, Input]:
    """The `inputs` of a VS Code file (top level, or under `mcp` in settings.json)."""
    raw = data.get("inputs")
    nested = data.get("mcp")
    if raw is None and isinstance(nested, dict):
        raw = nested.get("inputs")
    found: dict[str, Input] = {}
    for item in raw if isinstance(raw, list) else ():
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        default = item.get("default")
        options = item.get("options")
        found[item["id"]] = Input(
            id=item["id"],
            description=str(item.get("description") or ""),
            default=str(default) if isinstance(default, (str, int, float)) else None,
            password=item.get("password") is True,
            options=[str(o.get("value", "")) if isinstance(o, dict) else str(o) for o in options]
            if isinstance(options, list)
            else [],
        )
    return found


def workspace_for(path: str) -> str | None:
    """The folder `${workspaceFolder}` means for a config file: the one that
    holds its `.vscode` (or `.cursor`) folder, or a project `.mcp.json`'s own."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.basename(folder) in (".vscode", ".cursor"):
        return os.path.dirname(folder)
    if os.path.basename(path) == ".mcp.json":
        return folder
    return None


class _Expander:
    """`${VAR}`, `${env:VAR}`, `${input:ID}` and VS Code's folder variables in one entry."""

    def __init__(
        self,
        environ: Mapping[str, str],
        workspace: str | None,
        inputs: Mapping[str, Input],
        ask: Asker | None,
    ) -> None:
        self.environ = environ
        self.workspace = workspace or os.getcwd()
        self.inputs = inputs
        self.ask = ask
        self.missing: list[str] = []
        self.unanswered: dict[str, Input] = {}
        self.answers: dict[str, str] = {}
        # Values of `password` inputs -> the variable that answers them.
        self.secrets: dict[str, str] = {}

    def __call__(self, value: str) -> str:
        value = value.replace("${workspaceFolder}", self.workspace)
        value = value.replace("${workspaceFolderBasename}", os.path.basename(self.workspace))
        value = value.replace("${userHome}", os.path.expanduser("~"))
        value = _INPUT.sub(lambda match: self._input(match.group(1)), value)
        return _VAR.sub(self._variable, value)

    def _variable(self, match: re.Match[str]) -> str:
        name, fallback = match.group(1), match.group(2)
        if name in self.environ:
            return self.environ[name]
        if fallback is not None:
            return fallback
        self.missing.append(name)
        return ""

    def _input(self, input_id: str) -> str:
        if input_id in self.answers:
            return self.answers[input_id]
        declared = self.inputs.get(input_id) or Input(input_id)
        # Scripts answer with INSPECTOR_INPUT_<ID>; a person is asked; else the default.
        answer = self.environ.get(declared.variable)
        if answer is None and self.ask is not None:
            answer = self.ask(declared)
        if answer is None:
            answer = declared.default
        if answer is None:
            self.unanswered[input_id] = declared
            self.missing.append(declared.variable)
            return ""
        self.answers[input_id] = answer
        if declared.password:
            self.secrets[answer] = declared.variable
        return answer


def load_config(path: str) -> JSONObject:
    """The JSON object in a client config file (comments and trailing commas allowed); else `ConfigError`."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except ValueError:
        # VS Code's files allow comments and trailing commas.
        try:
            data = json.loads(_strip_jsonc(text))
        except ValueError as exc:
            raise ConfigError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be an object")
    return data


def _strip_jsonc(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def _servers(data: JSONObject) -> JSONObject:
    for key in ("mcpServers", "servers", "mcp_servers"):
        section = data.get(key)
        if isinstance(section, dict):
            return section
    # VS Code user settings nest it: {"mcp": {"servers": {...}}}
    nested = data.get("mcp")
    servers = nested.get("servers") if isinstance(nested, dict) else None
    return servers if isinstance(servers, dict) else {}


def claude_code_projects(data: JSONObject, cwd: str) -> JSONObject:
    """~/.claude.json keeps per-project servers under projects[path].mcpServers;
    the project that applies is the nearest one holding `cwd` (Claude Code
    started in a subfolder of a project still uses that project's servers)."""
    projects = data.get("projects")
    if not isinstance(projects, dict):
        return {}
    here = os.path.normpath(os.path.abspath(cwd))
    best: tuple[int, JSONObject] | None = None
    for folder, project in projects.items():
        servers = project.get("mcpServers") if isinstance(project, dict) else None
        if not isinstance(folder, str) or not isinstance(servers, dict) or not folder:
            continue
        root = os.path.normpath(folder)
        inside = here == root or here.startswith(root.rstrip(os.sep) + os.sep)
        if inside and (best is None or len(root) > best[0]):
            best = (len(root), servers)
    return best[1] if best is not None else {}


def server_names(data: JSONObject) -> list[str]:
    """The server names of a config file, whichever shape it has, in its order."""
    return list(_servers(data))


def servers_in(data: JSONObject) -> JSONObject:
    """The name -> entry map of a config file, whichever shape it has."""
    return _servers(data)


def _string_map(value: Any, what: str, name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"server {name!r}: {what} must be an object")
    return {str(k): str(v) for k, v in value.items() if v is not None}


def _auth_settings(entry: JSONObject, headers: dict[str, str], x: Any) -> Any:
    """OAuth settings of a remote entry (`oauth`: clientId, clientSecret, clientMetadataUrl,
    callbackPort, timeout, browser, grant, dpop, the enterprise IdP's keys, enabled; see
    `AuthConfig.from_entry`); an Authorization header turns OAuth off."""
    from inspector.core.auth.config import AuthConfig

    raw = entry.get("oauth") if entry.get("oauth") is not None else entry.get("auth")
    if isinstance(raw, dict):
        raw = {k: x(v) if isinstance(v, str) else v for k, v in raw.items()}
    config = AuthConfig.from_entry(raw)
    if any(key.lower() == "authorization" for key in headers):
        config.oauth = False
    return config


def spec_from_entry(
    name: str,
    entry: Any,
    environ: Mapping[str, str] | None = None,
    *,
    workspace: str | None = None,
    inputs: Mapping[str, Input] | None = None,
    ask: Asker | None = None,
) -> ServerSpec:
    """The spec of one entry.  `workspace`: what `${workspaceFolder}` means
    (the working directory when None); `inputs`: the file's VS Code inputs;
    `ask`: how to ask a person for an input no variable answers."""
    from inspector.core.record.secret_mask import mark_secret

    environ = os.environ if environ is None else environ
    if not isinstance(entry, dict):
        raise ConfigError(f"server {name!r}: the entry must be an object")
    x = _Expander(environ, workspace, inputs or {}, ask)
    spec = ServerSpec(name=name)
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    url = entry.get("url") or entry.get("serverUrl")
    if url is not None or kind in ("http", "sse", "streamable-http", "streamablehttp", "streamable_http"):
        _set_remote(spec, name, entry, kind, url, x)
    elif entry.get("command") is not None:
        _set_stdio(spec, name, entry, x)
    else:
        raise ConfigError(f"server {name!r}: needs either a command (stdio) or a url (HTTP)")
    era = entry.get("era")
    if isinstance(era, str):
        spec.era = era
    version = entry.get("protocolVersion")
    if isinstance(version, str):
        spec.protocol_version = version
    for value, variable in x.secrets.items():
        mark_secret(spec, value, variable)
    if x.missing:
        spec.secret_names.update(x.missing)
        missing = ", ".join(sorted(set(x.missing)))
        raise ConfigError(
            f"server {name!r}: environment variable(s) not set: {missing}", list(x.unanswered.values()), spec
        )
    return spec


def _set_remote(spec: ServerSpec, name: str, entry: JSONObject, kind: str, url: Any, x: _Expander) -> None:
    from inspector.core.record.secret_mask import secret_header

    if not isinstance(url, str) or not url:
        raise ConfigError(f"server {name!r}: a remote entry needs a url")
    spec.url = x(url)
    spec.transport = _TRANSPORT_ALIASES.get(kind, "auto") if kind else "auto"
    spec.headers = {k: x(v) for k, v in _string_map(entry.get("headers"), "headers", name).items()}
    # Every header from a config file is masked unless clearly harmless.
    spec.secret_names = {k for k in spec.headers if secret_header(spec, k)}
    spec.auth = _auth_settings(entry, spec.headers, x)


def _set_stdio(spec: ServerSpec, name: str, entry: JSONObject, x: _Expander) -> None:
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise ConfigError(f"server {name!r}: command must be a non-empty string")
    args = entry.get("args") or []
    if not isinstance(args, list):
        raise ConfigError(f"server {name!r}: args must be an array")
    spec.transport = "stdio"
    spec.command = x(command)
    spec.args = [x(str(a)) for a in args]
    spec.env = {k: x(v) for k, v in _string_map(entry.get("env"), "env", name).items()}
    cwd = entry.get("cwd")
    if cwd is not None:
        spec.cwd = os.path.expanduser(x(str(cwd)))


def _file_servers(path: str, data: JSONObject) -> JSONObject:
    servers = dict(_servers(data))
    if os.path.basename(path) == ".claude.json":
        servers.update(claude_code_projects(data, os.getcwd()))
    return servers


def names_in_file(path: str) -> list[str]:
    """The names `spec_from_file` knows in a config file, in the file's order."""
    return list(_file_servers(path, load_config(path)))


def spec_from_file(
    path: str, name: str | None, environ: Mapping[str, str] | None = None, *, ask: Asker | None = None
) -> ServerSpec:
    """The spec of the server *name* in a config file (None: its only one); `ConfigError` when it has no such server."""
    data = load_config(path)
    servers = _file_servers(path, data)
    if not servers:
        raise ConfigError(f"{path}: no servers found (expected an 'mcpServers' or 'servers' object)")
    if name is None:
        if len(servers) != 1:
            raise ConfigError(f"{path} defines {len(servers)} servers; pick one with --server: {', '.join(servers)}")
        name = next(iter(servers))
    if name not in servers:
        raise ConfigError(f"{path}: no server named {name!r}; known: {', '.join(servers)}")
    return spec_from_entry(name, servers[name], environ, workspace=workspace_for(path), inputs=inputs_in(data), ask=ask)
