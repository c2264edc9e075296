"""The agent todo tools behind `todo-ls mcp`: `todo_write`, `todo_read`, `todo_subscribe`,
`todo_unsubscribe` (see docs/mcp-todo-tools.md).

Transport-free: `TodoTools.call(name, arguments)` returns the answer text or raises `ToolError`
with a one-line message, and writes nothing when it raises. The MCP glue is in
`todo_ls.mcp.server`.

Lists are kept per session in the shared store, so every todo-ls process (the language server,
`todo-ls supervise`) sees them. MCP gives a tool call no session id: the companion OpenCode
plugin adds it to the arguments as `SESSION_ARG`, and a call without one is refused instead of
falling back to a list every session would share. Every write also refreshes a small text file
per session, the snapshot the plugin appends to the system prompt of each model request.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from todo_ls.checklist import StateRegistry
from todo_ls.globs import resolves_inside
from todo_ls.path_checks import target_problem
from todo_ls.settings import project_file
from todo_ls.settings.model import LoadedSettings, load_settings
from todo_ls.store import Store, StoreError, default_state_dir
from todo_ls.todos.model import (
    Todo,
    TodoInputError,
    context_block,
    parse_write,
    render,
    stored_todos,
    summary,
    write_answer,
)
from todo_ls.workspace import Folder, SubscriptionError, WorkspaceIndex

log = logging.getLogger(__name__)

TOOL_NAMES = ("todo_write", "todo_read", "todo_subscribe", "todo_unsubscribe")
SESSION_ARG = "todoLsSessionID"  # added to the arguments by the companion plugin
INJECT_KEY = "injectTodoContext"
SNAPSHOT_FOLDER = "context"  # under the default state folder, where the plugin looks
MAX_FILES = 100  # files in one subscribe / unsubscribe call
MARKDOWN_SUFFIXES = (".md", ".markdown")
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_FILE_STATES = {"inProgress": " (in progress)", "blocked": " (blocked: waits for the user)"}

NO_SESSION = (
    "This call carries no OpenCode session id, so todo-ls cannot tell whose todo list it is "
    "(lists are kept per session, never shared). Install the todo-ls companion plugin: run "
    "`todo-ls install opencode` in the project, then restart OpenCode."
)


class ToolError(Exception):
    """A tool call that cannot be carried out; the message is the answer the agent gets."""


def read_settings(folder: Path) -> LoadedSettings:
    """The project file's settings (`todo-ls.toml`), validated: a bad value falls back to its
    default and `warnings` says so, as it does each key the file may not set (read at every
    call, so an edit applies at once)."""
    found = project_file.read(folder)
    raw = {k: v for k, v in found.settings.items() if k != INJECT_KEY}
    loaded = load_settings(raw)
    loaded.warnings[:0] = [*([found.error] if found.error else []), *found.ignored]
    return loaded


def inject_context(folder: Path) -> bool:
    """`injectTodoContext` of the project file (default true): whether to keep the snapshot
    the companion plugin appends to every request. A key of this entry point only, since the
    editor never sees the plugin's requests."""
    value = project_file.read(folder).settings.get(INJECT_KEY, True)
    if not isinstance(value, bool):
        log.warning("todo-ls mcp: %s must be true or false; using true", INJECT_KEY)
        return True
    return value


def snapshot_path(session_id: str, env: Mapping[str, str] | None = None) -> Path:
    """Where the companion plugin reads the session's context block. Always under the
    default state folder (not the `stateDir` setting): the plugin runs inside OpenCode and
    knows only the environment."""
    return default_state_dir(env) / SNAPSHOT_FOLDER / f"{session_id}.md"


class TodoTools:
    """The four tools for one project folder, over one store."""

    def __init__(
        self,
        folder: Path,
        store: Store,
        *,
        env: Mapping[str, str] | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.folder = folder
        self.store = store
        self._env = dict(os.environ if env is None else env)
        self._now = now
        # Said once, in the first answer: the agent should know its list is not shared.
        self._pending_warning = store.warning

    def call(self, name: str, arguments: object) -> str:
        """Run tool `name`. Raises ToolError (nothing written) for bad input or a store that
        cannot be used."""
        if name not in TOOL_NAMES:
            raise ToolError(f"unknown tool {name!r}; todo-ls has {', '.join(TOOL_NAMES)}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ToolError(f"{name}: the arguments must be a JSON object")
        session_id = _session_id(arguments)
        try:
            answer = getattr(self, f"_{name}")(session_id, arguments)
        except (TodoInputError, SubscriptionError) as err:
            raise ToolError(f"{name}: {err}") from None
        except StoreError as err:  # it names the file and SQLite's reason
            raise ToolError(f"{name}: {err}; nothing was changed") from None
        if self._pending_warning:
            answer = f"Warning: {self._pending_warning}\n\n{answer}"
            self._pending_warning = None
        return str(answer)

    # --- the tools --------------------------------------------------------------------------

    def _todo_write(self, session_id: str, arguments: dict[str, Any]) -> str:
        written = parse_write(arguments)
        items = [t.to_json() for t in written.todos]
        self.store.set_session_todos(session_id, items, self._now(), progress=True)
        self._write_snapshot(session_id, written.todos)
        return write_answer(written)

    def _todo_read(self, session_id: str, arguments: dict[str, Any]) -> str:
        todos = stored_todos(self.store.session_todos(session_id))
        settings = read_settings(self.folder)
        index = self._index(settings)
        folder = index.folders[0]
        file_lines = []
        for item in index.open_items(folder):
            file_lines.append(f"- {item.ref} — {item.text}{_FILE_STATES.get(item.state, '')}")
        if not todos and not file_lines:
            return "No todos."
        lines = []
        if todos:
            lines += [f"Session list — {summary(todos)}", *render(todos)]
        if file_lines:
            if lines:
                lines.append("")
            lines += [f"Open items of the subscribed files ({len(file_lines)}):", *file_lines]
            lines.append("Tick a file item in its file (`- [x]`) when it is done.")
        return "\n".join(lines)

    def _todo_subscribe(self, session_id: str, arguments: dict[str, Any]) -> str:
        return self._change_subscriptions(arguments, subscribe=True)

    def _todo_unsubscribe(self, session_id: str, arguments: dict[str, Any]) -> str:
        return self._change_subscriptions(arguments, subscribe=False)

    # --- helpers ----------------------------------------------------------------------------

    def _index(self, loaded: LoadedSettings) -> WorkspaceIndex:
        settings = loaded.settings
        index = WorkspaceIndex(self.store)
        index.set_folders([Folder.from_path(self.folder)])
        # The project file's files: inside the folder only (docs/security.md).
        index.configure(
            settings.markdown_files,
            StateRegistry.from_settings(settings.states),
            default_confined=True,
        )
        return index

    def _change_subscriptions(self, arguments: dict[str, Any], subscribe: bool) -> str:
        files = arguments.get("files")
        if not isinstance(files, list) or not files:
            raise TodoInputError("files must be a non-empty list of {path} objects")
        if len(files) > MAX_FILES:
            raise TodoInputError(f"files has {len(files)} entries; at most {MAX_FILES} at once")
        settings = read_settings(self.folder)
        index = self._index(settings)
        targets = []
        for number, entry in enumerate(files):
            path = entry.get("path") if isinstance(entry, dict) else None
            if not isinstance(path, str) or not path.strip():
                raise TodoInputError(f"files[{number}].path must be a non-empty string")
            problem = target_problem(path.strip())
            if problem is not None:
                raise TodoInputError(f"files[{number}].path {problem}")
            target = index.resolve_target(path.strip())
            # An agent's call may be driven by repository content: it never reaches a file
            # elsewhere (docs/security.md).
            if not resolves_inside(index.folders[0].path, target):
                raise TodoInputError(
                    f"files[{number}].path {path.strip()!r:.300} is outside the project "
                    f"{self.folder} (symlinks resolved); the agent's tools stay inside it"
                )
            if target.suffix.lower() not in MARKDOWN_SUFFIXES:
                raise TodoInputError(f"files[{number}].path must name a .md or .markdown file")
            targets.append(target)
        for target in targets:  # all validated first: a bad entry changes nothing
            (index.subscribe if subscribe else index.unsubscribe)(target)
        folder = index.folders[0]
        current = [folder.relative(p) for p in index.subscribed(folder)]
        verb = "Subscribed" if subscribe else "Unsubscribed"
        listed = "\n".join(f"- {p}" for p in current) if current else "(none)"
        return f"{verb} {len(targets)} file(s). Subscribed files of this project:\n{listed}"

    def _write_snapshot(self, session_id: str, todos: tuple[Todo, ...]) -> None:
        """Refresh the plugin's context file; a failure only costs the injection."""
        path = snapshot_path(session_id, self._env)
        text = context_block(todos) if inject_context(self.folder) else ""
        try:
            if not text:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                return
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{session_id}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(text)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as err:
            log.warning("todo-ls mcp: could not write the context snapshot %s: %s", path, err)


def _session_id(arguments: dict[str, Any]) -> str:
    """The session id the plugin added (removed from the arguments); ToolError without one."""
    value = arguments.pop(SESSION_ARG, None)
    if value is None:
        raise ToolError(NO_SESSION)
    if not isinstance(value, str) or not _SESSION_ID.fullmatch(value):
        raise ToolError(f"{SESSION_ARG} is not a session id; {NO_SESSION}")
    return value
