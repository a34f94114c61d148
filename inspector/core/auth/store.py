"""Where tokens live between runs: per server and per issuer.

One small JSON file per server under `<config dir>/auth/` (mode 0600, in a
0700 directory) is the index and holds everything that is not secret: the
issuer, the client id, granted scopes, expiry.  The secrets (access and
refresh tokens, a minted client secret) go to the operating system's keyring
when it has a usable backend, and into the same 0600 file when it has none,
which is the normal case on a headless machine and is not reported as a
problem.

`INSPECTOR_TOKEN_STORE=file|keyring|auto` forces the choice; an isolated
`INSPECTOR_CONFIG_DIR` (what tests set) means `file` unless forced.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.core.auth.config import config_dir

if TYPE_CHECKING:
    from inspector.forms.values import JSONObject


__all__ = ["KEYRING_SERVICE", "MemoryTokenStore", "TokenStore", "default_store", "server_key"]

KEYRING_SERVICE = "inspector-mcp-oauth"
_SECRET_TOKEN_FIELDS = ("access_token", "refresh_token", "id_token")


def server_key(url: str) -> str:
    """The canonical resource URI of a server (RFC 8707): the store's key."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/") if parts.path not in ("", "/") else ""
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


class TokenStore:
    """Records per server; each record holds one entry per issuer."""

    def __init__(self, directory: Path, *, keyring: bool | None = None) -> None:
        self.directory = Path(directory)
        # None: use the keyring when a usable backend exists (decided lazily).
        self._keyring_wanted = keyring
        self._keyring_backend: Any = None
        self._keyring_checked = False
        self.keyring_problem: str | None = None

    # -- where things are ------------------------------------------------------------

    @property
    def auth_dir(self) -> Path:
        """The directory of the records."""
        return self.directory / "auth"

    def path_for(self, server: str) -> Path:
        """The record file of `server` (named by a hash of its canonical URI)."""
        digest = hashlib.sha256(server_key(server).encode()).hexdigest()[:24]
        return self.auth_dir / f"{digest}.json"

    @property
    def backend(self) -> str:
        """Where the secrets go: ``keyring`` or ``file``."""
        return "keyring" if self._keyring() is not None else "file"

    def _keyring(self) -> Any:
        if self._keyring_checked:
            return self._keyring_backend
        self._keyring_checked = True
        if self._keyring_wanted is False:
            return None
        try:
            import keyring
            from keyring.backends import fail

            backend = keyring.get_keyring()
        except Exception as exc:  # no keyring package, or a backend that cannot start  # noqa: BLE001
            self.keyring_problem = f"keyring unavailable: {exc}"
            return None
        usable = not isinstance(backend, fail.Keyring) and getattr(backend, "priority", 0) > 0
        if not usable:
            if self._keyring_wanted:
                self.keyring_problem = "no usable keyring backend; tokens are kept in the 0600 file"
            return None
        self._keyring_backend = backend
        return backend

    # -- reading ---------------------------------------------------------------------

    def has(self, server: str) -> bool:
        """Cheap: is there a record at all (no keyring access)?"""
        return self.path_for(server).is_file()

    def servers(self) -> list[JSONObject]:
        """Every record's non-secret part (for `inspector auth status`)."""
        out: list[JSONObject] = []
        if not self.auth_dir.is_dir():
            return out
        for path in sorted(self.auth_dir.glob("*.json")):
            record = _read_json(path)
            if isinstance(record, dict) and isinstance(record.get("server"), str):
                out.append(record)
        return out

    def load(self, server: str) -> JSONObject | None:
        """The server's record with its secrets merged back in (None when there is none; without
        the keyring's secrets when it fails)."""
        record = _read_json(self.path_for(server))
        if not isinstance(record, dict):
            return None
        if record.get("secrets") == "keyring":
            backend = self._keyring()
            secret_text = None
            if backend is not None:
                # Each backend fails in its own way (locked, its D-Bus service gone):
                # the tokens are then absent, and the person logs in again.
                with contextlib.suppress(Exception):
                    secret_text = backend.get_password(KEYRING_SERVICE, server_key(server))
            _merge_secrets(record, _parse(secret_text))
        return record

    # -- writing ---------------------------------------------------------------------

    def save(self, server: str, record: JSONObject) -> None:
        """Write the server's record: its secrets to the keyring when it takes them, else into the 0600 file."""
        record = json.loads(json.dumps(record))
        record["server"] = server_key(server)
        record["updated_at"] = int(time.time())
        backend = self._keyring()
        if backend is not None:
            secrets = _split_secrets(record)
            try:
                backend.set_password(KEYRING_SERVICE, server_key(server), json.dumps(secrets))
                record["secrets"] = "keyring"
            except Exception as exc:  # a locked keyring: fall back to the file  # noqa: BLE001
                self.keyring_problem = f"keyring refused the tokens ({exc}); kept in the 0600 file"
                _merge_secrets(record, secrets)
                record["secrets"] = "file"
        else:
            record["secrets"] = "file"
        _write_private(self.path_for(server), record)

    def delete(self, server: str) -> bool:
        """Delete the server's record and its keyring entry; True when a record existed."""
        path = self.path_for(server)
        record = _read_json(path)
        existed = path.exists()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        if isinstance(record, dict) and record.get("secrets") == "keyring":
            backend = self._keyring()
            if backend is not None:
                # The record is gone already, so the logout stands whatever the
                # backend raises (the entry missing, the keyring locked).
                with contextlib.suppress(Exception):
                    backend.delete_password(KEYRING_SERVICE, server_key(server))
        return existed


def _split_secrets(record: JSONObject) -> JSONObject:
    """Move the secret values out of `record`; returns them per issuer."""
    secrets: JSONObject = {}
    for issuer, entry in (record.get("issuers") or {}).items():
        if not isinstance(entry, dict):
            continue
        part: JSONObject = {}
        token = entry.get("token")
        if isinstance(token, dict):
            for name in _SECRET_TOKEN_FIELDS:
                if name in token:
                    part.setdefault("token", {})[name] = token.pop(name)
        client = entry.get("client")
        if isinstance(client, dict) and "client_secret" in client:
            part["client_secret"] = client.pop("client_secret")
        if part:
            secrets[issuer] = part
    return secrets


def _merge_secrets(record: JSONObject, secrets: Any) -> None:
    if not isinstance(secrets, dict):
        return
    issuers = record.setdefault("issuers", {})
    for issuer, part in secrets.items():
        entry = issuers.get(issuer)
        if not isinstance(entry, dict) or not isinstance(part, dict):
            continue
        if isinstance(part.get("token"), dict):
            entry.setdefault("token", {}).update(part["token"])
        if "client_secret" in part and isinstance(entry.get("client"), dict):
            entry["client"]["client_secret"] = part["client_secret"]


def _parse(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_private(path: Path, value: Any) -> None:
    """Write JSON readable by the user only, atomically."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        os.chmod(path.parent, 0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(value, handle, indent=1, sort_keys=True)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def default_store(environ: dict[str, str] | None = None) -> TokenStore:
    """The token store that `INSPECTOR_TOKEN_STORE` and `INSPECTOR_CONFIG_DIR` ask for
    (in `environ`, else in the process's environment)."""
    env = dict(os.environ) if environ is None else environ
    choice = (env.get("INSPECTOR_TOKEN_STORE") or "auto").lower()
    if choice == "file" or (choice == "auto" and env.get("INSPECTOR_CONFIG_DIR")):
        keyring: bool | None = False
    elif choice == "keyring":
        keyring = True
    else:
        keyring = None
    return TokenStore(config_dir(env), keyring=keyring)


class MemoryTokenStore(TokenStore):
    """Records kept in memory only (one process): for tests and throwaway runs."""

    def __init__(self) -> None:
        super().__init__(Path("/nonexistent-inspector-memory-store"), keyring=False)
        self._records: dict[str, JSONObject] = {}

    @property
    def backend(self) -> str:
        """``memory``."""
        return "memory"

    def has(self, server: str) -> bool:
        """Whether a record is kept for `server`."""
        return server_key(server) in self._records

    def servers(self) -> list[JSONObject]:
        """A copy of every record."""
        return [json.loads(json.dumps(record)) for record in self._records.values()]

    def load(self, server: str) -> JSONObject | None:
        """A copy of the server's record (None when there is none)."""
        record = self._records.get(server_key(server))
        return json.loads(json.dumps(record)) if record is not None else None

    def save(self, server: str, record: JSONObject) -> None:
        """Keep a copy of the server's record."""
        record = json.loads(json.dumps(record))
        record["server"] = server_key(server)
        record["updated_at"] = int(time.time())
        record["secrets"] = "memory"
        self._records[server_key(server)] = record

    def delete(self, server: str) -> bool:
        """Drop the server's record; True when there was one."""
        return self._records.pop(server_key(server), None) is not None
