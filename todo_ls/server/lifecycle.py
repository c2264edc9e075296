"""Initialize / initialized / shutdown, and when the settings are read (configuration.py).

- `initialize`: the client's capabilities are resolved into `ls.client_features`
  (client_features.py), the raw `initializationOptions` are kept, the answer goes out without
  pydantic.
- Right after the answer, before the client's next message: the settings are validated (with
  the project files) and the store is opened, so the client's first pulls already see the
  subscribed files.
- `initialized`, `workspace/didChangeConfiguration`: the client is asked for each folder's
  settings (`Configuration.refresh`). When they really changed, the client is asked to refresh
  its diagnostics and inlay hints where it supports that (code lenses follow the status, see
  status.py), and push clients get their diagnostics published again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from lsprotocol import types

from todo_ls.server import indexing
from todo_ls.server.client_features import ClientFeatures
from todo_ls.server.core import TodoLanguageServer
from todo_ls.server.diagnostics import Diagnostics
from todo_ls.server.documents import FileWatch
from todo_ls.server.status import StatusPublisher

log = logging.getLogger(__name__)


def after_initialize_answer(ls: TodoLanguageServer) -> None:
    """Validate the settings and open the store: the step `initialize` defers past its
    answer (pydantic and sqlite3 are not needed to write it)."""
    ls.configuration.load_initial()
    ls.open_store()


def register(
    server: TodoLanguageServer,
    diagnostics: Diagnostics,
    watch: FileWatch,
    status: StatusPublisher,
) -> None:
    async def refresh_views() -> None:
        ls = server
        steps = [diagnostics.refresh_all]
        if ls.client_features.inlay_hint_refresh:
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
        ls.client_features = ClientFeatures.from_capabilities(params.capabilities)
        ls.workspace_index.set_folders(ls.workspace_folders())
        ls.configuration.receive_initialization_options(params.initialization_options)
        # Loaded right after the answer, not after `initialized` asks the client: the client's
        # first diagnostic and inlay-hint pulls may come before that answer, and Neovim 0.11
        # cannot be asked to pull again. pygls writes the answer as soon as this handler
        # returns and handles the next message only after call_soon callbacks ran, so no
        # request sees the settings unloaded. Warnings are shown once the client is ready.
        try:
            asyncio.get_running_loop().call_soon(after_initialize_answer, ls)
        except RuntimeError:  # called directly, without a running server: load now
            after_initialize_answer(ls)

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: TodoLanguageServer, params: types.InitializedParams) -> None:
        ls.client_ready = True  # the log goes to the editor from now on (see app.py)
        token = await indexing.progress_token(ls)  # before the settings: see indexing.py
        await ls.refresh_settings()
        indexing.index_subscribed(ls, token)
        watch.indexed = True
        ls.spawn(watch.update(), "file watchers")  # also when the settings did not change
        ls.supervision.start()
        status.flush()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(
        ls: TodoLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await ls.refresh_settings(params.settings)

    @server.feature(types.SHUTDOWN)
    async def on_shutdown(ls: TodoLanguageServer, params: Any = None) -> None:
        watch.stop()
        status.stop()
        await ls.supervision.stop()
        ls.close_store()
