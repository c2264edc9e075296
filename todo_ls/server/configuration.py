"""`Configuration`: the one owner of the language server's `todoLs` settings.

Every source goes through it, and it alone validates settings and makes them current:

- the folder's project file (`todo-ls.toml` or `.todo-ls.toml`, see
  `todo_ls.settings.project_file`), the lowest layer;
- the editor's settings on top of it, key by key: the answer to `workspace/configuration`
  asked once per workspace folder (`scopeUri` = the folder), or, from a client that cannot be
  asked or has no value for the folder, the `settings` of its last `didChangeConfiguration`,
  else its `initializationOptions`.

Settings are per workspace folder (`for_folder`, `for_path`): each folder has its own
`markdownFiles`, diagnostics severity, inlay hints and code lenses. What exists once per server
(`stateDir`, `states`, `supervisor.*`) comes from the first folder's settings (`settings`).

When things happen (see docs/settings.md):

1. `initialize`: `receive_initialization_options` keeps the raw options, nothing more, so the
   answer goes out without pydantic.
2. Right after that answer, before the client's next message: `load_initial` reads the project
   files and validates; the server then opens the store (lifecycle.py).
3. `initialized`, `workspace/didChangeConfiguration` and a change of workspace folders:
   `refresh` asks the client again, re-reads the project files, shows each problem once as a
   one-line warning naming the key (and the file), and, when anything changed, makes the
   new settings current and returns a `SettingsChange`: the server (core.py,
   `refresh_settings`) tells every dependent part. The configuration never calls up into the
   server; it sees only the `SettingsClient` below and the workspace index.

From `initialize` until the first `refresh` is done, and during any later one, `ready()` waits:
a request whose answer depends on the settings (a diagnostic pull right after `didOpen`) is
answered with the settings the client is about to send, not with the defaults; a client without
diagnostic refresh (Neovim) would otherwise show nothing until the next edit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types

from todo_ls.workspace import Folder, expand_globs

if TYPE_CHECKING:  # pydantic and tomllib load after the `initialize` answer
    from todo_ls.server.client_features import ClientFeatures
    from todo_ls.settings.model import LoadedSettings, Settings, SupervisorSettings
    from todo_ls.settings.project_file import ProjectFile
    from todo_ls.workspace import WorkspaceIndex

log = logging.getLogger(__name__)

SECTION = "todoLs"
# A client that never answers `workspace/configuration` must not hold requests forever.
READY_TIMEOUT_S = 10.0


def section_of(raw: object) -> object:
    """Accept both the section itself and an object wrapping it as `{"todoLs": {...}}`."""
    if isinstance(raw, Mapping) and set(raw) == {SECTION}:
        return raw[SECTION]
    return raw


class SettingsClient(Protocol):
    """What the configuration needs of the editor's connection (the language server)."""

    client_features: ClientFeatures  # whether it can be asked (`configuration`)

    def warn_once(self, message: str) -> None:
        """Show a warning about a setting, once."""
        ...

    async def workspace_configuration_async(
        self, params: types.ConfigurationParams
    ) -> Sequence[Any | None]:
        """Ask the client for the settings of each item (`workspace/configuration`)."""
        ...


@dataclass(frozen=True)
class SettingsChange:
    """New settings became current: every part derived from them must follow (views,
    watchers, the supervisor); `store_moved`: `stateDir` changed, so the store reopens."""

    store_moved: bool


class Configuration:
    """The settings of every workspace folder, from every source (see the module docstring)."""

    def __init__(self, client: SettingsClient, index: WorkspaceIndex) -> None:
        self._client = client
        self._index = index
        self._initialization_options: object = None
        self._pushed: object = None  # `didChangeConfiguration` settings of a client not asked
        self._answers: dict[str, object] = {}  # folder key -> the client's answer for it
        self._project_files: dict[str, ProjectFile] = {}  # folder key -> its project file
        self._by_folder: dict[str, Settings] = {}
        self._first: Settings | None = None  # None: not loaded yet
        self._pending = 0  # fetches under way, or the first one expected (`_expecting`)
        self._expecting = False
        self._idle = asyncio.Event()
        self._idle.set()

    # --- results -------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The settings of the first workspace folder: what exists once per server."""
        if self._first is None:
            raise RuntimeError("todoLs settings read before they were loaded")
        return self._first

    def for_folder(self, folder: Folder | None) -> Settings:
        """The settings of `folder` (the first folder's for None or an unknown folder)."""
        found = self._by_folder.get(folder.key) if folder is not None else None
        return found if found is not None else self.settings

    def for_path(self, path: Path | None) -> Settings:
        """The settings of the innermost workspace folder holding `path`."""
        folder = self._index.folder_of(path) if path is not None else None
        return self.for_folder(folder)

    def folder_supervisor(self, key: str) -> SupervisorSettings | None:
        """The `supervisor` settings of the folder `key` (a folder path), None if unknown."""
        found = self._by_folder.get(key)
        return found.supervisor if found is not None else None

    @property
    def supervisor_enabled(self) -> bool:
        """Some folder has the supervisor on (each folder's own switch decides for it)."""
        folders = self._by_folder.values()
        return self.settings.supervisor.enabled or any(s.supervisor.enabled for s in folders)

    def project_file_paths(self) -> list[Path]:
        """Where each folder's project file is or would be (for the file watchers)."""
        from todo_ls.settings.project_file import FILE_NAMES

        return [f.path / name for f in self._index.folders for name in FILE_NAMES]

    @property
    def is_ready(self) -> bool:
        """No settings are being fetched: `ready()` would return at once."""
        return self._idle.is_set()

    async def ready(self) -> None:
        """Return once no settings are being fetched (at most `READY_TIMEOUT_S` later)."""
        if self._idle.is_set():
            return
        try:
            await asyncio.wait_for(self._idle.wait(), READY_TIMEOUT_S)
        except asyncio.TimeoutError:
            # Stop waiting for that answer altogether: no later request waits for it again.
            log.warning("settings: no answer to workspace/configuration; going on without")
            self._pending, self._expecting = 0, False
            self._idle.set()

    # --- the steps -----------------------------------------------------------------------

    def receive_initialization_options(self, raw: object) -> None:
        """`initialize`: keep the raw options for `load_initial` (no validation here). A client
        that will be asked for its settings makes `ready()` wait for that first answer."""
        self._initialization_options = section_of(raw)
        if self._client.client_features.configuration:
            self._expecting = True
            self._begin_fetch()

    def load_initial(self) -> None:
        """Right after the `initialize` answer: read the project files and validate the
        options, telling no one (the client has seen nothing that could be refreshed).
        Warnings wait for `refresh`, when the client can show them."""
        self._read_project_files()
        self._apply(self._resolve(), defer_globs=False)

    async def refresh(self, pushed: object = None) -> SettingsChange | None:
        """Ask the client for every folder's settings (clients that cannot be asked push them
        with `didChangeConfiguration`), re-read the project files, warn about bad values and
        make them current. Returns what changed (None: nothing), for the server to apply."""
        if self._expecting:  # the first fetch, counted since `initialize`
            self._expecting = False
        else:
            self._begin_fetch()
        try:
            if self._client.client_features.configuration:
                if not await self._ask_client():
                    return None  # a client that fails the request keeps the old settings
            elif isinstance(pushed, Mapping) and SECTION in pushed:
                self._pushed = pushed[SECTION]
            self._read_project_files()
            resolved = self._resolve()
            for loaded in resolved.values():
                for warning in loaded.warnings:
                    self._client.warn_once(warning)
                if loaded.unknown_keys:
                    log.info("ignoring unknown settings: %s", ", ".join(loaded.unknown_keys))
            for project in self._project_files.values():
                if project.error is not None:
                    self._client.warn_once(f"todo-ls: {project.error}")
                for line in project.ignored:
                    self._client.warn_once(f"todo-ls: {line}")
            change = self._apply(resolved, defer_globs=True)
            # Inside the fetch: a request waiting for the settings (`ready`) must see the
            # files they name.
            await self._expand_globs()
            return change
        finally:
            self._end_fetch()

    async def _expand_globs(self) -> None:
        """Expand the patterns the settings changed on a worker thread (a walk of the whole
        workspace must not hold up the event loop), then install them: only the files that
        differ change membership. Until then the old expansion answers."""
        index = self._index
        if index.globs_pending:
            index.install_globs(await asyncio.to_thread(expand_globs, index.glob_plans()))

    # --- fetching ------------------------------------------------------------------------

    def _begin_fetch(self) -> None:
        self._pending += 1
        self._idle.clear()

    def _end_fetch(self) -> None:
        self._pending = max(0, self._pending - 1)
        if self._pending == 0:
            self._idle.set()

    async def _ask_client(self) -> bool:
        """One `workspace/configuration` request with an item per folder; False on failure."""
        folders = self._index.folders
        params = types.ConfigurationParams(
            items=[types.ConfigurationItem(section=SECTION, scope_uri=f.uri) for f in folders]
        )
        try:
            answers = await self._client.workspace_configuration_async(params)
        except Exception as exc:
            log.warning("workspace/configuration failed: %s", exc)
            return False
        # A client answering fewer items than asked has no value for the rest.
        answered = zip(folders, answers or [], strict=False)
        self._answers = {f.key: section_of(a) for f, a in answered}
        return True

    def _read_project_files(self) -> None:
        from todo_ls.settings import project_file  # tomllib: not needed to answer `initialize`

        self._project_files = {f.key: project_file.read(f.path) for f in self._index.folders}

    # --- resolving and applying ----------------------------------------------------------

    def _editor_settings(self, key: str) -> object:
        """What the editor says for the folder `key`: its answer, else what it pushed, else
        its `initializationOptions`."""
        answer = self._answers.get(key)
        if answer is not None:
            return answer
        if self._pushed is not None:
            return self._pushed
        return self._initialization_options

    def _editor_names_files(self, key: str) -> bool:
        """The editor sets the `markdownFiles` of the folder `key`: the user's choice, which
        may name any file. Otherwise they are the project file's, kept inside the folder."""
        editor = self._editor_settings(key)
        return isinstance(editor, Mapping) and bool(
            {"markdownFiles", "markdown_files"} & set(editor)
        )

    def _resolve(self) -> dict[str, LoadedSettings]:
        """Validated settings per folder key."""
        return {f.key: self._resolve_folder(f.key) for f in self._index.folders}

    def _resolve_folder(self, key: str) -> LoadedSettings:
        """The editor's settings for the folder `key` over its project file's, validated; a
        bad value from the file is named with the file."""
        from todo_ls.settings import project_file
        from todo_ls.settings.model import (  # pydantic: after `initialize`
            LoadedSettings,
            load_settings,
        )

        project = self._project_files.get(key)
        base: Mapping[str, Any] = project.settings if project is not None else {}
        editor = self._editor_settings(key)
        if editor is not None and not isinstance(editor, Mapping):
            # Say so (one warning), then use the project file alone.
            from_file = load_settings(base)
            return LoadedSettings(
                from_file.settings,
                [*load_settings(editor).warnings, *from_file.warnings],
                from_file.unknown_keys,
            )
        merged = project_file.layered(base, editor)
        source = project_file.origin(project, editor) if project is not None else None
        return load_settings(merged, source)

    def _apply(
        self, resolved: Mapping[str, LoadedSettings], *, defer_globs: bool
    ) -> SettingsChange | None:
        """The one place settings become current (in the workspace index too); what changed,
        None when nothing did. `defer_globs`: changed patterns keep their old expansion until
        the server installs the new one, walked off the event loop (`ls.refresh_settings`)."""
        from todo_ls.checklist import StateRegistry
        from todo_ls.settings.model import Settings

        by_folder = {key: loaded.settings for key, loaded in resolved.items()}
        folders: Sequence[Folder] = self._index.folders
        first = by_folder[folders[0].key] if folders else Settings()
        previous = self._first
        if previous is not None and by_folder == self._by_folder and first == previous:
            return None  # VS Code sends didChangeConfiguration on any change, even of others
        self._by_folder, self._first = by_folder, first
        confined = {key for key in by_folder if not self._editor_names_files(key)}
        self._index.configure(
            first.markdown_files,
            StateRegistry.from_settings(first.states),
            folder_patterns={key: s.markdown_files for key, s in by_folder.items()},
            confined=confined,
            default_confined=not folders or folders[0].key in confined,
            defer_globs=defer_globs,
        )
        return SettingsChange(previous is not None and first.state_dir != previous.state_dir)
