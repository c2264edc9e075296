"""Initialize / initialized / shutdown and settings.

Settings come from `initializationOptions` (kept by `initialize`, validated right after its
answer by `TodoLanguageServer.settle`: `initialize` is answered without pydantic, and the
client's first pulls already see the subscribed files), then from `workspace/configuration`
(section `todoLs`) on `initialized` and on every `workspace/didChangeConfiguration` (whose
`settings` is only used by clients that cannot be asked). A bad value is shown once as a
warning naming the key, and its default is used; unknown keys are logged. When the settings
really changed, the client is asked to refresh its diagnostics and inlay hints where it
supports that (code lenses follow the status, see status.py), and push clients get their
diagnostics published again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

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
    loaded = ls.read_settings(_section(raw))
    for warning in loaded.warnings:
        ls.warn_once(warning)
    if loaded.unknown_keys:
        log.info("ignoring unknown settings: %s", ", ".join(loaded.unknown_keys))
    if loaded.settings == ls.settings:
        return  # VS Code sends didChangeConfiguration on any change, even of other extensions
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
        steps = [diagnostics.refresh_all]
        if ls.supports("workspace.inlay_hint.refresh_support"):
            steps.append(lambda: ls.workspace_inlay_hint_refresh_async(None))
        steps.append(watch.update)
        for step in steps:
            try:  # one refusing client request must not keep the others from running
                await step()
            except Exception as exc:
                log.warning("refresh after a settings or subscription change: %s", exc)

    def on_subscriptions() -> None:
        # Without a running loop (before the server runs) there is nothing to refresh.
        with contextlib.suppress(RuntimeError):
            server.spawn(refresh_views(), "refresh after a settings or subscription change")

    server.set_hooks(status=status.schedule, subscriptions=on_subscriptions)

    @server.feature(types.INITIALIZE)
    def on_initialize(ls: TodoLanguageServer, params: types.InitializeParams) -> None:
        ls.expect_settings(_section(params.initialization_options))
        ls.workspace_index.set_folders(ls.workspace_folders())
        # Settled right after the answer, not after `initialized` pulls workspace/configuration:
        # the client's first diagnostic and inlay-hint pulls may come before that answer, and
        # Neovim 0.11 cannot be asked to pull again. pygls writes the answer as soon as this
        # handler returns and handles the next message only after call_soon callbacks ran, so
        # no request sees the options unapplied. Warnings are shown once the client is ready.
        try:
            asyncio.get_running_loop().call_soon(ls.settle)
        except RuntimeError:  # called directly, without a running server: settle now
            ls.settle()

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: TodoLanguageServer, params: types.InitializedParams) -> None:
        ls.client_ready = True  # the log goes to the editor from now on (see app.py)
        token = await indexing.progress_token(ls)  # before the settings: see indexing.py
        await pull_settings(ls)
        ls.spawn(watch.update(), "file watchers")  # also when the settings did not change
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
