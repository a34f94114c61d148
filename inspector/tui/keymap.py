"""Keys remapped from the inspector's own config file, by binding id.

`config.toml` (a `[keymap]` table) or `config.yaml` (a `keymap:` mapping)
in the inspector's config directory (`INSPECTOR_CONFIG_DIR`, else
`$XDG_CONFIG_HOME/inspector`, else `~/.config/inspector`) maps a binding's
id to the key or keys (comma-separated, or a list) that replace its own:

    [keymap]
    reconnect = "ctrl+n"
    tab_tools = "f2,alt+t"

Textual applies the map (`App.set_keymap`) wherever the binding is; this
module reads the file and says what in it cannot be used, so a typo is
reported instead of silently doing nothing or stopping the inspector.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.binding import Binding
from textual.keys import key_to_character

__all__ = ["FILES", "KeymapSettings", "apply_keymap", "binding_ids", "key_hint", "keys_in_force", "load_keymap"]

FILES = ("config.toml", "config.yaml", "config.yml")


@dataclass
class KeymapSettings:
    """The keymap in force and what the file held that could not be used."""

    keymap: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    path: str | None = None


def binding_ids() -> set[str]:
    """Every binding id the TUI has (what a keymap may name)."""
    from inspector.tui.screens.help import all_bindings

    return {binding.id for _owner, binding in all_bindings() if binding.id}


def _config_dir(environ: Mapping[str, str]) -> Path:
    from inspector.core.auth.config import config_dir

    return config_dir(dict(environ))


def _read(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        import tomllib

        return tomllib.loads(text)
    import yaml

    return yaml.safe_load(text)


def load_keymap(environ: Mapping[str, str] | None = None) -> KeymapSettings:
    """The keymap of the first config file found; never raises for what the file holds."""
    env = os.environ if environ is None else environ
    folder = _config_dir(env)
    path = next((folder / name for name in FILES if (folder / name).is_file()), None)
    if path is None:
        return KeymapSettings()
    settings = KeymapSettings(path=str(path))
    try:
        data = _read(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        # tomllib and yaml both raise ValueError subclasses for bad syntax.
        settings.problems.append(f"{path}: cannot be read ({exc.__class__.__name__}: {exc}); keys not remapped")
        return settings
    except Exception as exc:  # noqa: BLE001  # yaml's own errors are not ValueErrors
        settings.problems.append(f"{path}: cannot be read ({exc.__class__.__name__}); keys not remapped")
        return settings
    raw = data.get("keymap") if isinstance(data, dict) else None
    if raw is None:
        return settings
    if not isinstance(raw, dict):
        settings.problems.append(f"{path}: keymap must map binding ids to keys; keys not remapped")
        return settings
    known = binding_ids()
    for binding_id, keys in raw.items():
        name = str(binding_id)
        if name not in known:
            settings.problems.append(f"{path}: keymap: no binding has the id {name!r} (ignored; ? lists the keys)")
            continue
        if isinstance(keys, list) and keys and all(isinstance(k, str) and k.strip() for k in keys):
            keys = ",".join(k.strip() for k in keys)
        if not isinstance(keys, str) or not all(k.strip() for k in keys.split(",")):
            settings.problems.append(f'{path}: keymap: {name} needs a key such as "ctrl+n" (ignored)')
            continue
        settings.keymap[name] = ",".join(k.strip() for k in keys.split(","))
    settings.problems.extend(f"{path}: keymap: {clash}" for clash in clashes(settings.keymap))
    return settings


def clashes(keymap: Mapping[str, str]) -> list[str]:
    """Keys a keymap gives that another binding of the same widget keeps:
    Textual hands the key to the remapped binding, the other loses it
    (silently: its own check counts a binding missing from the map as rebound)."""
    from inspector.tui.screens.help import all_bindings

    found: list[str] = []
    by_owner: dict[type, list[Binding]] = {}
    for owner, binding in all_bindings():
        by_owner.setdefault(owner, []).append(binding)
    for owner, bindings in by_owner.items():
        for binding in bindings:
            if not binding.id or binding.id not in keymap:
                continue
            taken = {_canonical(key) for key in keymap[binding.id].split(",")}
            for other in bindings:
                if other is binding or (other.id and other.id in keymap):
                    continue
                lost = taken & {_canonical(key) for key in other.key.split(",")}
                if lost:
                    found.append(
                        f"{binding.id} takes {', '.join(sorted(lost))} from {other.id or other.action}"
                        f" ({owner.__name__}), which no longer has it"
                    )
    return found


def keys_in_force(binding: Binding, keymap: Mapping[str, str]) -> Binding:
    """The binding with the keys a keymap gave it (as Textual applies it)."""
    if binding.id and binding.id in keymap:
        return binding.with_key(keymap[binding.id], key_display=None)
    return binding


# Bindings by id, found so far.  Ids are unique across the TUI's classes,
# so a binding found in the modules already imported is the one a scan of
# every module would find: that scan (it imports every screen and pane, the
# web server's too) is left to an id no imported module declares.
_FOUND: dict[str, Binding] = {}
_SCANNED: set[str] = set()


def _binding_of(binding_id: str) -> Binding | None:
    """The binding declared with this id in a class of the TUI (None: none)."""
    if binding_id not in _FOUND:
        _scan_imported()
    if binding_id not in _FOUND and "*" not in _SCANNED:
        from inspector.tui.screens.help import all_bindings

        _FOUND.update((binding.id, binding) for _owner, binding in all_bindings() if binding.id)
        _SCANNED.add("*")
    return _FOUND.get(binding_id)


def _scan_imported() -> None:
    """Take in the bindings of the TUI modules imported since the last scan."""
    for name, module in list(sys.modules.items()):
        if name in _SCANNED or not name.startswith("inspector.tui") or module is None:
            continue
        _SCANNED.add(name)
        for owner in list(vars(module).values()):
            if not isinstance(owner, type) or owner.__module__ != name:
                continue
            for binding in owner.__dict__.get("BINDINGS", []):
                if isinstance(binding, Binding) and binding.id:
                    _FOUND[binding.id] = binding


def key_hint(app: Any, binding_id: str, joiner: str = " or ") -> str:
    """The keys in force for a binding, for a hint written on screen
    ("ctrl+enter or ctrl+j reads it"), so the hint follows the keymap."""
    from inspector.tui.screens.help import key_names

    binding = _binding_of(binding_id)
    if binding is None:
        return binding_id
    return joiner.join(key_names(keys_in_force(binding, getattr(app, "keymap", {}))).split(" / "))


def apply_keymap(app: Any, settings: KeymapSettings) -> None:
    """Put the keymap in force on a running or starting app."""
    app.keymap = dict(settings.keymap)
    app.set_keymap(settings.keymap)


def _canonical(key: str) -> str:
    """One spelling per key: "?" and "question_mark" are the same key."""
    key = key.strip()
    if len(key) > 1 and "+" not in key:
        character = key_to_character(key)
        if character and character.isprintable():
            return character
    return key
