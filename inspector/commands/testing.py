"""`inspector test FILE…`: run collections (saved calls with expectations).

Each collection runs in its own connection: to the server the command line
names, else the one the file names (`server:`), else the embedded demo
server.  Prints a report (pass/fail per expectation), writes JUnit XML
(`--junit`), rewrites expectations from the current answers (`--update`,
printing the diff) and records every step's traffic (`--record`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from collections.abc import Callable
from typing import Any

from inspector.collections import Collection, CollectionError, CollectionResult, CollectionRunner, load_collection
from inspector.collections.variables import VariableError, env_references, substitute
from inspector.commands import exitcodes
from inspector.commands.output import Output
from inspector.core.safetext import visible
from inspector.core.servers.spec import ServerSpec

__all__ = ["collection_spec", "run_test"]

SpecFactory = Callable[[Collection], ServerSpec]

_SERVER_KEYS = frozenset(
    {"command", "env", "cwd", "url", "headers", "transport", "config", "server", "era", "protocolVersion", "timeout"}
)
# Command-line options that apply to every collection's server, over what the file says.
_SHARED = ("era", "protocol_version", "timeout", "max_message_size", "inherit_env", "root")


def collection_spec(collection: Collection, args: argparse.Namespace) -> ServerSpec:
    """The server a collection's `server:` names, in the forms the command
    line accepts; relative paths are relative to the collection's folder, and
    a stdio server starts there."""
    from inspector.commands.inputs import spec_from_command_line
    from inspector.core.servers.from_args import UsageError

    folder = os.path.dirname(os.path.abspath(collection.path))
    try:
        ref = substitute(collection.server, os.environ, {})
    except VariableError as exc:
        raise UsageError(f"{collection.path}: server: {exc}") from exc
    if isinstance(ref, str):
        names, command = _server_from_text(ref, folder, collection.path)
    elif isinstance(ref, dict):
        names, command = _server_from_mapping(ref, folder, collection.path)
    else:
        raise UsageError(f"{collection.path}: server: a string or a mapping")
    for option in _SHARED:
        value = getattr(args, option, None)
        if value not in (None, False):
            setattr(names, option, value)
    spec = spec_from_command_line(names, command)
    if command and not spec.cwd:
        spec.cwd = folder
    return spec


def _server_from_text(ref: str, folder: str, path: str) -> tuple[argparse.Namespace, list[str]]:
    """`server:` written as one string: a URL, stdio:'CMD', config:FILE[#NAME] or server:NAME."""
    from inspector.core.servers.from_args import UsageError

    names = argparse.Namespace()
    command: list[str] = []
    kind, colon, rest = ref.partition(":")
    if ref.startswith(("http://", "https://")):
        names.url = ref
    elif colon and kind == "stdio":
        command = shlex.split(rest)
    elif colon and kind == "config":
        config, _hash, server = rest.partition("#")
        names.config, names.server = os.path.join(folder, config), server or None
    elif colon and kind == "server":
        names.server = rest
    else:
        raise UsageError(
            f"{path}: server: {ref!r} is none of http(s)://…, stdio:'CMD', config:FILE[#NAME], "
            "server:NAME (or a mapping)"
        )
    return names, command


def _server_from_mapping(ref: dict[str, Any], folder: str, path: str) -> tuple[argparse.Namespace, list[str]]:
    """`server:` written as a mapping of the command line's options."""
    from inspector.core.servers.from_args import UsageError

    unknown = sorted(set(ref) - _SERVER_KEYS)
    if unknown:
        raise UsageError(f"{path}: server: unknown key(s) {', '.join(unknown)}")
    command: list[str] = []
    given = ref.get("command")
    if isinstance(given, str):
        command = shlex.split(given)
    elif isinstance(given, list):
        command = [str(word) for word in given]
    names = argparse.Namespace()
    names.url = ref.get("url")
    names.transport = ref.get("transport")
    names.config = os.path.join(folder, ref["config"]) if isinstance(ref.get("config"), str) else None
    names.server = ref.get("server")
    names.env = [f"{k}={v}" for k, v in (ref.get("env") or {}).items()]
    names.header = [f"{k}: {v}" for k, v in (ref.get("headers") or {}).items()]
    names.cwd = os.path.join(folder, ref["cwd"]) if isinstance(ref.get("cwd"), str) else None
    names.era = ref.get("era")
    names.protocol_version = ref.get("protocolVersion")
    names.timeout = ref.get("timeout")
    return names, command


def _mark_secrets(collection: Collection, spec: ServerSpec) -> None:
    """`${env:API_TOKEN}` in a step: its value is masked like any secret."""
    from inspector.core.record.secret_mask import is_secret_name, mark_secret

    names: set[str] = set()
    for step in collection.steps:
        names |= env_references([step.target, step.arguments, step.expect.values, step.expect.text])
    for name in sorted(names):
        if is_secret_name(name) and os.environ.get(name):
            mark_secret(spec, os.environ[name], name)


def _record_path(base: str | None, collection: Collection, count: int, index: int) -> str | None:
    if not base or count == 1:
        return base
    stem, ext = os.path.splitext(base)
    name = os.path.splitext(os.path.basename(collection.path))[0]
    return f"{stem}-{index + 1}-{name}{ext or '.jsonl'}"


async def _run_one(
    collection: Collection, spec: ServerSpec, args: argparse.Namespace, record: str | None
) -> CollectionResult:
    from inspector.commands.runner import connected, failure

    result = CollectionResult(collection, server=spec.label(), record=record)
    try:
        async with connected(spec, args, record=record) as client:
            result.era, result.protocol_version = client.era, client.protocol_version
            runner = CollectionRunner(client, collection)
            for step in collection.steps:
                result.steps.append(await runner.run_step(step))
    except BrokenPipeError:
        raise
    except Exception as exc:  # noqa: BLE001 - a collection that cannot run is reported, the others still run
        code, message, _detail = failure(exc)
        result.failure, result.failure_code = message, code
    return result


async def _run_all(
    collections: list[Collection], specs: list[ServerSpec], args: argparse.Namespace
) -> list[CollectionResult]:
    base = getattr(args, "record", None)
    return [
        await _run_one(collection, spec, args, _record_path(base, collection, len(collections), n))
        for n, (collection, spec) in enumerate(zip(collections, specs, strict=True))
    ]


def run_test(args: argparse.Namespace, spec_for: SpecFactory) -> int:
    """`inspector test FILE…`: run each collection in a connection of its own; returns the exit code."""
    from inspector.core.servers.from_args import UsageError

    out = Output.for_args(args)
    collections: list[Collection] = []
    specs: list[ServerSpec] = []
    try:
        for path in args.files:
            collection = load_collection(path)
            spec = spec_for(collection)
            _mark_secrets(collection, spec)
            collections.append(collection)
            specs.append(spec)
    except (CollectionError, UsageError) as exc:
        print(f"inspector: error: {visible(str(exc))}", file=sys.stderr)
        return exitcodes.USAGE
    results = asyncio.run(_run_all(collections, specs, args))
    updates = _update(results) if args.update else {}
    if out.json:
        out.json_value(_json_report(results, updates))
    else:
        _print_report(out, results, updates)
    if args.junit:
        from inspector.collections.junit import junit_xml

        try:
            with open(args.junit, "w", encoding="utf-8") as handle:
                handle.write(junit_xml(results))
        except OSError as exc:
            print(f"inspector: cannot write --junit file: {visible(str(exc.strerror or exc))}", file=sys.stderr)
            return exitcodes.USAGE
    return _exit_code(results, bool(args.update))


def _update(results: list[CollectionResult]) -> dict[str, dict[str, Any]]:
    """Rewrite each collection that ran; what changed, per file."""
    from inspector.collections.updating import unified_diff, update_collection

    updates: dict[str, dict[str, Any]] = {}
    for result in results:
        collection = result.collection
        if result.failure is not None:
            continue
        text, notes = update_collection(collection, result.steps)
        diff = unified_diff(collection.text, text, collection.path)
        if diff:
            with open(collection.path, "w", encoding="utf-8") as handle:
                handle.write(text)
        updates[collection.path] = {"diff": diff, "notes": notes, "written": bool(diff)}
    return updates


def _exit_code(results: list[CollectionResult], updated: bool) -> int:
    from inspector.collections.updating import UNFIXABLE

    for result in results:
        if result.failure_code is not None:
            return result.failure_code
    for result in results:
        for step in result.steps:
            if updated:
                unfixable = [c for c in step.failed_checks if c.kind in UNFIXABLE or c.extra.get("unevaluable")]
                if step.answer.failure is not None or unfixable:
                    return exitcodes.EXPECTATIONS_FAILED
            elif not step.passed:
                return exitcodes.EXPECTATIONS_FAILED
    return exitcodes.OK


def _json_report(results: list[CollectionResult], updates: dict[str, dict[str, Any]]) -> dict[str, Any]:
    collections = []
    for result in results:
        entry: dict[str, Any] = {
            "file": result.collection.path,
            "name": result.collection.name,
            "server": result.server,
            "era": result.era,
            "protocolVersion": result.protocol_version,
            "passed": result.passed,
            "steps": [step.to_json() for step in result.steps],
        }
        if result.failure is not None:
            entry["failure"] = result.failure
        if result.record:
            entry["record"] = result.record
        if result.collection.path in updates:
            entry["update"] = updates[result.collection.path]
        collections.append(entry)
    steps = [step for result in results for step in result.steps]
    return {
        "passed": all(result.passed for result in results),
        "steps": len(steps),
        "failed": sum(1 for step in steps if not step.passed),
        "collections": collections,
    }


def _print_report(out: Output, results: list[CollectionResult], updates: dict[str, dict[str, Any]]) -> None:
    for result in results:
        collection = result.collection
        if result.failure is not None:
            out.line(f"{collection.path}: could not run against {result.server}: {result.failure}")
            continue
        out.line(
            f"{collection.path}: {collection.name} — {len(result.steps)} step(s) against {result.server} "
            f"({result.era} era, {result.protocol_version})"
        )
        _print_steps(out, result)
        update = updates.get(collection.path)
        if update is not None:
            _print_update(out, collection.path, update)
        if result.record:
            out.line(f"traffic recorded in {result.record} (inspector open {result.record})")
    steps = [step for result in results for step in result.steps]
    failed = sum(1 for step in steps if not step.passed)
    broken = sum(1 for result in results if result.failure is not None)
    summary = f"{len(steps)} step(s): {len(steps) - failed} passed, {failed} failed"
    if broken:
        summary += f"; {broken} collection(s) could not run"
    out.line(summary + (" (before the update)" if updates else ""))


def _print_steps(out: Output, result: CollectionResult) -> None:
    """Each step, passed or failed, and each of its checks (what failed, why)."""
    for step in result.steps:
        out.line(f"  {'ok  ' if step.passed else 'FAIL'}  {step.step.name}  ({step.answer.elapsed_ms:.0f} ms)")
        for check in step.checks:
            line = f"        {'✓' if check.passed else '✗'} {check.label}"
            if check.detail and not check.passed:
                line += f": {check.detail}"
            out.line(visible(line, keep_newlines=False))


def _print_update(out: Output, path: str, update: dict[str, Any]) -> None:
    """What `--update` did to one file: its diff, or that it was left alone, and why steps were kept."""
    if update["written"]:
        out.line(f"updated {path}:")
        out.lines(update["diff"])
    else:
        out.line(f"{path}: every expectation already holds; not rewritten")
    for note in update["notes"]:
        out.line(f"  note: {note}")
