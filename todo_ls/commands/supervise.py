"""`todo-ls supervise [--url URL] [--directory DIR] [--settings JSON|FILE]`: the supervisor
without an editor.

Headless there are no editor settings: the folder's project file (`todo-ls.toml`) applies,
with `--settings` (the `todoLs` object an editor would send, inline or in a JSON file, e.g.
shorter timings) over it key by key and `--url` over both. The subscribed files of the folder
are its `markdownFiles` plus the ones subscribed by command in the shared store (from an
editor, or the agent's own `todoLs.subscribe`), so the same files count as in the editor.
It builds the same supervisor service as the language server (supervisor/service.py), so it
supervises the same sessions: an OpenCode or Kilo server's and the hook agents'. Stdout gets
one line per session whenever its state changes and one line per nudge; logs go to stderr.
SIGINT / SIGTERM stop it cleanly (exit 0); bad arguments exit 2 with a one-line error."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from todo_ls.checklist.model import StateRegistry
from todo_ls.core.clock import Clock, SystemClock
from todo_ls.settings import project_file
from todo_ls.settings.model import Settings, SupervisorSettings, load_settings
from todo_ls.settings.table import CREDENTIALS_IN_URL, url_has_credentials
from todo_ls.store import Store
from todo_ls.supervisor.delivery import NudgeSent
from todo_ls.supervisor.service import Connect, SupervisorService
from todo_ls.supervisor.workspace_items import IndexWorkspace
from todo_ls.workspace import Folder, WorkspaceIndex, normalize

log = logging.getLogger(__name__)

REFRESH_S = 5.0  # re-read subscriptions and files this often (no editor tells us)


class LinePrinter:
    """Prints a session's line when something but its quiet clock changed."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._last: dict[str, tuple[Any, ...]] = {}
        self._host: tuple[Any, ...] | None = None

    def _write(self, line: str) -> None:
        self._out.write(line + "\n")
        self._out.flush()

    def changed(self, service: SupervisorService) -> None:
        """The service's host line when the connection changed, and one line per session
        (every source's: OpenCode's and the hook agents') whose state moved."""
        host = service.host_status()
        if host is None:
            return
        key = (host["connected"], host.get("error"))
        if key != self._host:
            self._host = key
            if host["connected"]:
                self._write(f"connected to {host['kind']} {host['version'] or ''} at {host['url']}")
            elif host.get("error"):
                self._write(f"not connected: {host['error']}")
        for session in service.sessions():
            detail = session.detail
            # The quiet clock and the settle countdown move every second: not a change.
            steady = () if detail is None else detail.steady
            seen = (session.state, session.open, session.nudges, *steady)
            if self._last.get(session.id) == seen:
                continue
            self._last[session.id] = seen
            parts = [session.state, None if detail is None else detail.text, f"{session.open} open"]
            self._write(f"{session.id} {' · '.join(p for p in parts if p)}")

    def nudged(self, sent: NudgeSent) -> None:
        self._write(f"nudged {sent.session_id} ({sent.kind} #{sent.number})")


class HeadlessHost:
    """`ServiceHost` of `todo-ls supervise`: one folder, settings fixed at start, the status
    printed as lines."""

    def __init__(
        self, settings: SupervisorSettings, index: WorkspaceIndex, store: Store, out: TextIO
    ) -> None:
        self._settings = settings
        self._store = store
        self._workspace = IndexWorkspace(index)
        self.printer = LinePrinter(out)
        self.service: SupervisorService | None = None

    @property
    def workspace(self) -> IndexWorkspace:
        return self._workspace

    def supervisor_settings(self) -> SupervisorSettings:
        return self._settings

    def supervisor_enabled(self) -> bool:
        return True  # asked for by name: `supervisor.enabled` is the editors' switch

    def folder_settings(self, folder: str) -> SupervisorSettings | None:
        return None  # one folder: the settings above are its own

    def shared_store(self) -> Store:
        return self._store

    def state_dir(self) -> Path | None:
        return None  # never asked: the store above is always there

    def status_changed(self) -> None:
        if self.service is not None:
            self.printer.changed(self.service)

    def show_message(self, text: str) -> None:
        log.info("%s", text)  # the `nudged` line already said it on stdout

    def nudged(self, sent: NudgeSent) -> None:
        self.printer.nudged(sent)


async def supervise(
    settings: SupervisorSettings,
    folder: Path,
    out: TextIO,
    *,
    connect: Connect | None = None,
    clock: Clock | None = None,
    store: Store | None = None,
    stop: asyncio.Event | None = None,
    markdown_files: Sequence[str] = (),
    files_confined: bool = True,
    registry: StateRegistry | None = None,
    state_dir: Path | None = None,
) -> int:
    """Run until `stop` is set (or SIGINT / SIGTERM). Returns the exit code.
    `files_confined`: `markdown_files` are the project file's, kept inside `folder`.
    `connect` is for tests (default: host discovery, as in the editor)."""
    own_store = store is None
    store = store or Store.open(state_dir)
    clock = clock or SystemClock()
    stop = stop or asyncio.Event()
    index = WorkspaceIndex(store)
    index.set_folders([Folder.from_path(folder)])
    index.configure(
        markdown_files, registry or StateRegistry.default(), default_confined=files_confined
    )
    host = HeadlessHost(settings, index, store, out)
    service = host.service = SupervisorService(host, connect=connect, clock=clock)

    async def refresh() -> None:
        while True:
            await clock.sleep(REFRESH_S)
            index.reload_overrides()
            service.files_changed()
            host.status_changed()

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop.set)
    service.start()
    refresher = loop.create_task(refresh())
    try:
        await stop.wait()
    finally:
        refresher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await refresher
        await service.stop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)
        if own_store:
            store.close()
    return 0


def _fail(message: str) -> int:
    sys.stderr.write(f"todo-ls supervise: {message}\n")
    return 2


class _BadSettings(ValueError):
    """`--settings` cannot be used; the message says why in one line."""


def _is_file(text: str) -> Path | None:
    path = Path(text).expanduser()
    try:
        return path if path.is_file() else None
    except OSError:  # e.g. inline JSON longer than a file name may be
        return None


def _settings_object(text: str) -> object:
    """The `--settings` value as JSON: the path of a JSON file, else inline JSON text. The
    error names which of the two the value was taken for."""
    path = _is_file(text)
    if path is not None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as err:
            raise _BadSettings(f"--settings file {str(path)!r} cannot be read: {err}") from err
        except ValueError as err:
            raise _BadSettings(f"--settings file {str(path)!r} is not JSON: {err}") from err
    try:
        return json.loads(text)
    except ValueError as err:
        raise _BadSettings(
            f"--settings is neither a JSON file nor inline JSON ({err}): {text!r}"
        ) from err


def headless_settings(text: str | None, url: str | None, folder: Path) -> Settings | str:
    """The settings from the folder's project file, `--settings` (the `todoLs` object an
    editor would send, inline or in a file) over it key by key and `--url` over both, or why
    they cannot be used. An invalid key falls back to its default with a warning naming it,
    and a key the project file may not set (`project_file.USER_ONLY`) is ignored with one."""
    loaded = _settings_and_origin(text, url, folder)
    return loaded if isinstance(loaded, str) else loaded[0]


def _settings_and_origin(
    text: str | None, url: str | None, folder: Path
) -> tuple[Settings, bool] | str:
    """`headless_settings`, and whether its `markdownFiles` are the project file's (not
    `--settings`'), so they must stay inside the folder."""
    raw: object = None
    if text is not None:
        try:
            raw = _settings_object(text)
        except _BadSettings as err:
            return str(err)
        if not isinstance(raw, dict):
            return "--settings must be a JSON object"
    project = project_file.read(folder)
    for line in [*([project.error] if project.error else []), *project.ignored]:
        sys.stderr.write(f"todo-ls supervise: {line}\n")
    merged = project_file.layered(project.settings, raw)
    loaded = load_settings(merged, project_file.origin(project, raw))
    for warning in loaded.warnings:
        sys.stderr.write(f"todo-ls supervise: {warning}\n")
    settings = loaded.settings
    confined = not (isinstance(raw, dict) and {"markdownFiles", "markdown_files"} & set(raw))
    if url is None:
        return settings, confined
    supervisor = settings.supervisor.model_copy(update={"url": url})
    return settings.model_copy(update={"supervisor": supervisor}), confined


def run_supervise(url: str | None, directory: str | None, settings: str | None = None) -> int:
    """Entry point of `todo-ls supervise`; `settings` is the `--settings` value (JSON text or
    the path of a JSON file)."""
    if url is not None:
        parts = urlsplit(url)
        if url_has_credentials(url):  # said without the URL: it holds a secret
            return _fail(f"--url {CREDENTIALS_IN_URL}")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return _fail(f"--url must be an http(s) URL, got {url!r}")
    folder = normalize(directory or os.getcwd())
    if not folder.is_dir():
        return _fail(f"--directory {str(folder)!r} is not a directory")
    found = _settings_and_origin(settings, url, folder)
    if isinstance(found, str):
        return _fail(found)
    loaded, confined = found
    try:
        return asyncio.run(
            supervise(
                loaded.supervisor,
                folder,
                sys.stdout,
                markdown_files=loaded.markdown_files,
                files_confined=confined,
                registry=StateRegistry.from_settings(loaded.states),
                state_dir=Path(loaded.state_dir).expanduser() if loaded.state_dir else None,
            )
        )
    except KeyboardInterrupt:
        return 0
