"""Initialize / initialized / shutdown and settings.

Settings come from `initializationOptions`, then from `workspace/configuration` (section
`todoLs`) on `initialized` and on every `workspace/didChangeConfiguration` (whose `settings`
is only used by clients that cannot be asked). A bad value is shown once as a warning naming
the key, and its default is used; unknown keys are logged.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from todo_ls.config import load_settings
from todo_ls.server import indexing
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.diagnostics import Diagnostics
from todo_ls.server.documents import FileWatch
from todo_ls.server.status import StatusPublisher

log = logging.getLogger(__name__)
SECTION = "todoLs"


def _section(raw: object) -> object:
    """Accept both the section itself and an object wrapping it as `{"todoLs": {...}}`."""
    if isinstance(raw, Mapping) and set(raw) == {SECTION}:
        return raw[SECTION]
    return raw


def load(ls: TodoLanguageServer, raw: object) -> None:
    """Validate raw settings, report problems, and make them current."""
    loaded = load_settings(_section(raw))
    for warning in loaded.warnings:
        ls.warn_once(warning)
    if loaded.unknown_keys:
        log.info("ignoring unknown settings: %s", ", ".join(loaded.unknown_keys))
    ls.apply_settings(loaded.settings)
    ls.supervision.settings_changed()


async def pull_settings(ls: TodoLanguageServer, pushed: object = None) -> None:
    """Ask the client for section `todoLs`; clients that cannot be asked push it instead."""
    if ls.supports("workspace.configuration"):
        try:
            (raw,) = await ls.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            )
        except Exception as exc:  # a client that fails the request keeps the old settings
            log.warning("workspace/configuration failed: %s", exc)
            return
        if raw is None and ls.initial_settings is not None:
            raw = ls.initial_settings  # the client has no value: keep initializationOptions
    else:
        raw = pushed.get(SECTION) if isinstance(pushed, Mapping) else ls.initial_settings
    load(ls, raw)


def register(
    server: TodoLanguageServer,
    diagnostics: Diagnostics,
    watch: FileWatch,
    status: StatusPublisher,
) -> None:
    async def refresh_views() -> None:
        ls = server
        await diagnostics.refresh_all()
        if ls.supports("workspace.inlay_hint.refresh_support"):
            await ls.workspace_inlay_hint_refresh_async(None)
        await watch.update()

    def on_subscriptions() -> None:
        # Without a running loop (before the server runs) there is nothing to refresh.
        with contextlib.suppress(RuntimeError):
            server.spawn(refresh_views(), "refresh after a settings or subscription change")

    server.set_hooks(status=status.schedule, subscriptions=on_subscriptions)

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: TodoLanguageServer, params: types.InitializeParams) -> None:
        ls.initial_settings = _section(params.initialization_options)
        ls.workspace_index.set_folders(ls.workspace_folders())
        loaded = load_settings(ls.initial_settings)
        ls.settings = loaded.settings  # warnings are shown once the client is ready

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: TodoLanguageServer, params: types.InitializedParams) -> None:
        ls.open_store()
        token = await indexing.progress_token(ls)  # before the settings: see indexing.py
        await pull_settings(ls)
        indexing.index_subscribed(ls, token)
        ls.supervision.start()
        status.flush()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(
        ls: TodoLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await pull_settings(ls, params.settings)

    @server.feature(types.SHUTDOWN)
    async def on_shutdown(ls: TodoLanguageServer, params: Any = None) -> None:
        watch.stop()
        status.stop()
        await ls.supervision.stop()
        if ls.store is not None:
            ls.store.close()
            ls.store = None
