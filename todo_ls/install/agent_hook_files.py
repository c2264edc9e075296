"""Merge todo-ls's hook entries into an agent's JSON settings file, and take them out again.

The hook hosts (todo_ls/hook/hosts/) read hooks in one shape:
`{"hooks": {"<Event>": [{"matcher"?: "...", "hooks": [{"type": "command", "command": "..."}]}]}}`.
todo-ls adds one group per event holding only its own command and touches nothing else.
GitHub Copilot CLI lists the handlers themselves under each event, with the command under
`bash` (`{"version": 1, "hooks": {"<Event>": [{"type": "command", "bash": "..."}]}}`): a host
says which shape it reads (`HookHost.grouped`, `command_key`).

- Idempotent: an event that already runs this command is left alone; an older todo-ls command
  for the same agent (another install path) is replaced.
- A file that is not a JSON object is refused, never rewritten.
- Uninstall removes exactly todo-ls's handlers. When they were the only change since the
  install, the file comes back byte for byte (or is deleted if the install created it): the
  original text is kept in the state folder at install time for that.
- A file that changes between reading and writing is not overwritten.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from todo_ls.hook.hosts.base import HookHost as Host
from todo_ls.install import Options, originals
from todo_ls.store import default_state_dir


class InstallError(Exception):
    """The settings file cannot be changed safely; the message says why."""


@dataclass(frozen=True)
class HookEvent:
    """One event todo-ls registers for."""

    name: str
    matcher: str | None = None


@dataclass(frozen=True)
class HookHost:
    """An agent whose settings take hooks in the shared shape."""

    kind: str  # the hook host's kind: also the hook's `--host`
    label: str  # for messages
    events: Sequence[HookEvent]
    project_file: str  # relative to the project folder
    user_file: Path  # absolute
    timeout: int | None = None  # in the agent's unit, None = the agent's default
    note: str = ""  # printed after an install (a step only the user can do)
    grouped: bool = True  # handlers inside `{"hooks": [...]}` groups (False: listed directly)
    command_key: str = "command"  # where a handler keeps its command line
    timeout_key: str = "timeout"
    skeleton: Mapping[str, Any] = field(default_factory=dict)  # top-level keys of a new file

    def path(self, options: Options) -> Path:
        if options.scope == "user":
            return self.user_file
        return options.directory / self.project_file

    def handler(self, command: str) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "command", self.command_key: command}
        if self.timeout is not None:
            entry[self.timeout_key] = self.timeout
        return entry

    def handlers(self, entry: object) -> list[dict[str, Any]]:
        """The handlers of one entry of an event's list (a group, or a handler itself)."""
        if not self.grouped:
            return [entry] if isinstance(entry, dict) else []
        if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
            return []
        return [h for h in entry["hooks"] if isinstance(h, dict)]

    def is_ours(self, handler: object) -> bool:
        """A handler todo-ls wrote for this agent (any install path)."""
        return is_ours(handler, self.kind, self.command_key)


def settings_of(host: Host, options: Options) -> HookHost:
    """Where and what `todo-ls install` writes for the hook host `host`."""
    return HookHost(
        kind=host.kind,
        label=host.label,
        events=tuple(HookEvent(e.name, e.matcher) for e in host.install_events),
        project_file=host.project_settings,
        user_file=host.user_settings(options.env),
        timeout=host.timeout,
        note=host.trust_note,
    )


def hook_command(base: str, kind: str) -> str:
    """The command an agent runs for todo-ls's hook."""
    return f"{base} hook --host {kind}"


def is_ours(handler: object, kind: str, key: str = "command") -> bool:
    """A handler todo-ls wrote for this agent (any install path)."""
    if not isinstance(handler, dict) or not isinstance(handler.get(key), str):
        return False
    command: str = handler[key]
    return command.endswith(f" hook --host {kind}") and (
        "todo-ls" in command or "todo_ls" in command
    )


def install(host: HookHost, options: Options) -> int:
    """`todo-ls install <agent>` / `--uninstall` for a hook host; prints what it changed."""
    path = host.path(options)
    out = options.out
    try:
        text = _read(path)
        data = _parse(path, text)
        command = hook_command(options.command, host.kind)
        if options.uninstall:
            new_text, changes = _uninstall(host, path, text, data, options)
        else:
            new_text, changes = _install(host, text, data, command)
    except InstallError as exc:
        print(f"todo-ls install {host.kind}: {exc}", file=out)
        return 1
    if not changes:
        done = "no todo-ls hooks in" if options.uninstall else "already installed in"
        print(f"{host.label}: {done} {path}; nothing to change.", file=out)
        return 0
    verb = "would change" if options.dry_run else "changed"
    print(f"{host.label}: {verb} {path}:", file=out)
    for line in changes:
        print(f"  {line}", file=out)
    if options.dry_run:
        return 0
    try:
        if not options.uninstall:
            _keep_original(path, text, options, fresh=not _has_ours(data, host))
        _write(path, text, new_text)
        if options.uninstall:
            _forget_original(path, options)
    except (InstallError, OSError) as exc:
        print(f"todo-ls install {host.kind}: {exc}", file=out)
        return 1
    if host.note and not options.uninstall:
        print(host.note, file=out)
    return 0


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}; nothing written") from None


def _parse(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InstallError(
            f"{path} is not valid JSON ({exc}); fix it or add the hooks by hand; nothing written"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(
            f"{path} holds a JSON {type(data).__name__}, not an object; nothing written"
        )
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise InstallError(f'{path}: "hooks" is not an object; nothing written')
    for event, groups in (hooks or {}).items():
        if not isinstance(groups, list):
            raise InstallError(f"{path}: hooks.{event} is not a list; nothing written")
    return data


def _install(
    host: HookHost, text: str | None, data: dict[str, Any], command: str
) -> tuple[str, list[str]]:
    new = copy.deepcopy(data) if data else copy.deepcopy(dict(host.skeleton))
    hooks = new.setdefault("hooks", {})
    changes: list[str] = []
    for event in host.events:
        groups: list[Any] = hooks.setdefault(event.name, [])
        key = host.command_key
        if any(h.get(key) == command for g in groups for h in host.handlers(g)):
            continue
        replaced = _drop_ours(groups, host)
        group: dict[str, Any] = host.handler(command)
        if host.grouped:
            group = {"hooks": [group]}
        if event.matcher is not None:
            group = {"matcher": event.matcher, **group}
        groups.append(group)
        what = "replaced" if replaced else "added"
        changes.append(f"{what} {event.name}: {command}")
    return _dump(new, text), changes


def _uninstall(
    host: HookHost, path: Path, text: str | None, data: dict[str, Any], options: Options
) -> tuple[str | None, list[str]]:
    new = copy.deepcopy(data)
    hooks = new.get("hooks") or {}
    changes: list[str] = []
    for event in list(hooks):
        if _drop_ours(hooks[event], host):
            changes.append(f"removed {event}")
        if not hooks[event]:
            del hooks[event]
    if not changes:
        return text, []
    original = _original(path, options)
    if original is not None:
        existed, before = original
        if not existed and not hooks and _only_skeleton(new, host):
            return None, [*changes, "(the install created the file: deleted)"]
        if existed and before is not None and _parse(path, before) in (new, _without_empty(new)):
            return before, [*changes, "(restored the file as it was before the install)"]
    return _dump(_without_empty(new), text), changes


def _only_skeleton(data: dict[str, Any], host: HookHost) -> bool:
    """Nothing left but what the install put in a new file."""
    return all(k == "hooks" or host.skeleton.get(k, object()) == v for k, v in data.items())


def _without_empty(data: dict[str, Any]) -> dict[str, Any]:
    """Drop a `hooks` object the install added and the uninstall emptied."""
    if data.get("hooks") == {}:
        return {k: v for k, v in data.items() if k != "hooks"}
    return data


def _drop_ours(groups: list[Any], host: HookHost) -> int:
    """Remove todo-ls's handlers from `groups` (and groups left empty); how many went."""
    if not host.grouped:
        keep = [h for h in groups if not host.is_ours(h)]
        removed = len(groups) - len(keep)
        groups[:] = keep
        return removed
    removed = 0
    for group in list(groups):
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        keep = [h for h in group["hooks"] if not host.is_ours(h)]
        if len(keep) == len(group["hooks"]):
            continue
        removed += len(group["hooks"]) - len(keep)
        if keep:
            group["hooks"] = keep
        else:
            groups.remove(group)
    return removed


def _indent(text: str | None) -> str | int:
    """The indentation the file already uses (2 spaces for a new file)."""
    match = re.search(r"\n([ \t]+)\S", text or "")
    if not match:
        return 2
    unit = match.group(1)
    return "\t" if unit.startswith("\t") else len(unit)


def _dump(data: dict[str, Any], text: str | None) -> str:
    return json.dumps(data, indent=_indent(text), ensure_ascii=False) + "\n"


def _write(path: Path, before: str | None, text: str | None) -> None:
    """Replace `path` atomically with `text` (None: delete it), unless it changed since it
    was read."""
    if _read(path) != before:
        raise InstallError(f"{path} changed while todo-ls was editing it; run the command again")
    if text is None:
        path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if before is not None else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _backup_path(path: Path, options: Options) -> Path:
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]
    return default_state_dir(options.env) / "install" / f"{digest}.json"


def _has_ours(data: dict[str, Any], host: HookHost) -> bool:
    hooks = data.get("hooks") or {}
    return any(
        host.is_ours(h)
        for groups in hooks.values()
        for group in groups
        for h in host.handlers(group)
    )


def _keep_original(path: Path, text: str | None, options: Options, fresh: bool) -> None:
    """Remember the file as it was before todo-ls changed it (for a byte-exact uninstall); an
    install over todo-ls's own entries (`fresh` False) keeps the earlier record."""
    backup = _backup_path(path, options)
    if backup.exists() and not fresh:
        return
    backup.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    record = {
        "path": str(path),
        "existed": text is not None,
        "text": text,
        "folder_existed": path.parent.is_dir(),
        "created_folders": [str(f) for f in originals.missing_folders(path.parent)],
    }
    backup.write_text(json.dumps(record), encoding="utf-8")


def _record(path: Path, options: Options) -> dict[str, Any] | None:
    try:
        record = json.loads(_backup_path(path, options).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("path") == str(path) else None


def _original(path: Path, options: Options) -> tuple[bool, str | None] | None:
    record = _record(path, options)
    if record is None:
        return None
    text = record.get("text")
    return bool(record.get("existed")), text if isinstance(text, str) else None


def _forget_original(path: Path, options: Options) -> None:
    """Drop the install record; folders the install created go too when they are empty."""
    record = _record(path, options)
    if record is not None and record.get("folder_existed") is False and not path.exists():
        created = record.get("created_folders")
        folders = created if isinstance(created, list) else [str(path.parent)]
        for folder in folders:
            try:
                Path(folder).rmdir()  # only when empty
            except OSError:
                break
    with contextlib.suppress(OSError):
        _backup_path(path, options).unlink()
