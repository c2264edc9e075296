"""`TodoLanguageServer`: the server object and the state every feature module shares.

Feature modules (diagnostics, code actions, ...) register their handlers on it and read:
`configuration` (the `todoLs` settings, per workspace folder: `settings_for(path)`, and
`settings` for what exists once per server), `client_features` (what the client can do, see
client_features.py), `workspace_index` (folders, subscriptions, parsed files), `supervision`
(the supervisor service), `store` (None when unavailable) and `encoding` (the negotiated
position encoding).

Settings reach the server only through `configuration` (configuration.py says from where and
when); reading them never validates anything or opens the store. The store is opened once,
explicitly, right after the `initialize` answer (lifecycle.py), and again only when `stateDir`
changes.

The supervisor service sees the server only as its `ServiceHost` (supervisor_host.py): the
workspace index's folders and items, the settings, the store, and `status_changed()`, which
asks for a new `todoLs/status` (coalesced).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from todo_ls import __version__
from todo_ls.checklist import StateRegistry
from todo_ls.server.client_features import ClientFeatures
from todo_ls.server.configuration import Configuration
from todo_ls.server.document_cache import DocumentCache
from todo_ls.server.framing import StdinReader, serve
from todo_ls.server.positions import Encoding
from todo_ls.server.protocol import CLIENT_ERRORS, TodoProtocol
from todo_ls.server.supervisor_host import EditorHost
from todo_ls.supervisor.service import SupervisorService
from todo_ls.workspace import Folder, WorkspaceIndex, normalize

if TYPE_CHECKING:  # pydantic and sqlite3 load after the `initialize` answer (lifecycle.py)
    from todo_ls.server.store_writes import SubscriptionWrites
    from todo_ls.server.summary_writes import SummaryWrites
    from todo_ls.settings.model import Settings
    from todo_ls.store import Store

log = logging.getLogger(__name__)

# The language server's lock budget (docs/store.md#how-it-is-opened): what its store thread
# waits for a store held by another process before trying again later. Its event loop never
# waits more than the store's LOOP_LOCK_WAIT.
SERVER_LOCK_WAIT = 1.0
# How often the store's file is looked at for faults SQLite hides (removed, damaged, read-only).
STORE_CHECK_S = 2.0

SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


class TodoLanguageServer(LanguageServer):
    """The todo-ls language server (built by `todo_ls.server.app.create_server`)."""

    def __init__(self) -> None:
        super().__init__("todo-ls", __version__, protocol_cls=TodoProtocol)
        # What the client can do: resolved at `initialize` (lifecycle.py), none of it before.
        self.client_features = ClientFeatures()
        self.workspace_index = WorkspaceIndex(warn=self.warn_once)
        self.configuration = Configuration(self, self.workspace_index)
        self.client_ready = False  # `initialized` arrived: the client shows window/logMessage
        self.store: Store | None = None
        self._store_writes: SubscriptionWrites | None = None
        self._summary_writes: SummaryWrites | None = None
        self._store_watch: asyncio.Task[None] | None = None
        self.supervision = SupervisorService(
            EditorHost(
                self.configuration,
                self.workspace_index,
                lambda: self.store,
                self.status_changed,
                self.window_show_message,
            )
        )
        self.generation = 0  # bumped when settings or subscriptions change (diagnostic ids)
        self._shown: set[str] = set()  # warnings already shown to the user
        self._status_hook: Callable[[], None] = lambda: None
        self._subscription_hook: Callable[[], None] = lambda: None
        self._tasks: set[asyncio.Task[Any]] = set()
        # The features' per-document caches: dropped when the editor closes the document.
        self.document_caches: list[DocumentCache[Any]] = []
        # Called when the client's input has been handled (coalesced work, framing.py), and
        # whether more has arrived (over stdio; elsewhere it is never known to be).
        self.idle_hooks: list[Callable[[], None]] = []
        self.input_pending: Callable[[], bool] = lambda: False
        self._warm_rows: set[Path] = set()  # persisted rows read at the store's opening

    # --- the client ----------------------------------------------------------------------

    @property
    def encoding(self) -> Encoding:
        """The negotiated position encoding (utf-16 when the client did not choose)."""
        return self.client_features.encoding

    def severity_for(self, path: Path | None) -> types.DiagnosticSeverity | None:
        """The diagnostic severity configured for `path`'s folder, None when they are off."""
        return SEVERITIES.get(self.settings_for(path).diagnostics.severity)

    @property
    def registry(self) -> StateRegistry:
        return self.workspace_index.registry

    # --- user-facing messages ------------------------------------------------------------

    def warn_once(self, message: str) -> None:
        """Show `message` as a warning, once per server lifetime."""
        log.warning("%s", message)
        if message in self._shown:
            return
        self._shown.add(message)
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Internal errors are logged (stderr and the output channel), never a popup; the
        client's own mistakes (bad params, an unknown method) are a warning line."""
        if isinstance(error, CLIENT_ERRORS):
            log.warning("refused a client message: %s", error)
            return
        log.error("internal error (%s): %s", getattr(source, "__name__", source), error)

    # --- transports: pygls's, read through the bounded framing (framing.py) ---------------

    def _start_io_async(
        self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
    ) -> None:
        self._stop_event = threading.Event()
        reader = StdinReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.input_pending = reader.pending
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(serve(self._stop_event, reader, self.protocol, idle=self._idle))
        except BrokenPipeError:
            log.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    def _idle(self) -> None:
        for hook in self.idle_hooks:
            try:
                hook()
            except Exception:  # one feature's failure must not stop the reading
                log.exception("idle work failed")

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one TCP client at a time on `host:port`, through the bounded framing."""
        self._stop_event = stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            await serve(stop_event, reader, self.protocol, idle=self._idle)
            self.shutdown()  # type: ignore[no-untyped-call]

        async def run() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        with contextlib.suppress(asyncio.CancelledError):
            asyncio.run(run())

    # --- folders, store, settings --------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The settings that exist once per server (the first folder's: `stateDir`, `states`,
        `supervisor.*`); `settings_for` has a file's own. Loaded after `initialize`."""
        return self.configuration.settings

    def settings_for(self, path: Path | None) -> Settings:
        """The settings of the workspace folder holding `path`."""
        return self.configuration.for_path(path)

    def workspace_folders(self) -> list[Folder]:
        """The client's workspace folders; the root URI or the current directory without."""
        found = [Folder.from_uri(f.uri) for f in self.workspace.folders.values()]
        folders = [f for f in found if f is not None]
        if not folders and self.workspace.root_uri:
            root = Folder.from_uri(self.workspace.root_uri)
            folders = [root] if root is not None else []
        return folders or [Folder.from_path(normalize(os.getcwd()))]

    def open_store(self) -> None:
        """(Re)open the shared store where `stateDir` says; without it, stay in memory.
        Called right after the `initialize` answer and when `stateDir` changes."""
        from todo_ls.server.store_writes import SubscriptionWrites
        from todo_ls.store import Store  # sqlite3: not needed to answer `initialize`

        state_dir = Path(self.settings.state_dir).expanduser() if self.settings.state_dir else None
        try:
            store = Store.open(state_dir, lock_wait=SERVER_LOCK_WAIT)
        except Exception as exc:  # the store is optional for the editor features
            self.warn_once(
                f"todo-ls: state store unavailable ({exc}); subscriptions kept in memory"
            )
            store = None
        if store is not None and store.warning:
            self.warn_once(store.warning)
        self.close_store()
        self.store = store
        if store is None:
            self.workspace_index.set_store(None)
            return
        self._store_writes = SubscriptionWrites(store, self.from_any_thread(self.warn_once))
        self.workspace_index.set_store(self._store_writes)
        self._warm_start(store)
        with contextlib.suppress(RuntimeError):  # no loop: a test driving the server object
            self._store_watch = asyncio.get_running_loop().create_task(self._watch_store(store))

    def _warm_start(self, store: Store) -> None:
        """Hand the workspace index the persisted summaries of its folders' files, and the
        store thread that persists the ones it reads (file_index.py, summary_writes.py)."""
        from todo_ls import file_index
        from todo_ls.server.summary_writes import SummaryWrites
        from todo_ls.store import StoreError

        index = self.workspace_index
        try:
            rows = store.file_summaries([f.key for f in index.folders])
        except StoreError as exc:  # a cache: start cold
            log.warning("the persisted file index cannot be read: %s", exc)
            rows = []
        known = file_index.load(rows, index.registry)
        self._summary_writes = SummaryWrites(store, lambda: file_index.fingerprint(index.registry))
        index.warm(known, self._summary_writes)
        # Rows that cannot be trusted (damaged, another format or states) are rewritten as
        # their files are read; those of files no longer subscribed are checked in
        # `forget_unsubscribed` once the index is built.
        self._warm_rows = {Path(row[0]) for row in rows if isinstance(row[0], str)}

    def forget_unsubscribed(self) -> None:
        """After the initial index: drop the persisted rows of this workspace's files that
        are gone from disk (checked on the store thread)."""
        writes, rows = self._summary_writes, self._warm_rows
        self._warm_rows = set()
        if writes is None or not rows:
            return
        subscribed = {path for _, path in self.workspace_index.all_subscribed()}
        writes.drop_if_missing(rows - subscribed)

    async def _watch_store(self, store: Store) -> None:
        """Look at the store's file every `STORE_CHECK_S` (off the event loop: it reads the
        file) and act on what happened to it behind SQLite's back (docs/store.md, "A store
        that breaks while open"): removed or replaced → reopened, damaged → moved aside and
        rebuilt, read-only → said. Each is told once; the editor features never wait on it."""
        while True:
            await asyncio.sleep(STORE_CHECK_S)
            try:
                fault = await asyncio.to_thread(store.fault)
                if fault is None:
                    continue
                if fault == "read-only":
                    self.warn_once(
                        f"todo-ls: the state store {store.path} is read-only; pauses and "
                        "subscription changes are not saved until it can be written again"
                    )
                    continue
                await asyncio.to_thread(store.reopen, fault == "damaged")
            except Exception as err:  # never lose the watch: look again next time
                log.warning("state store check failed: %s", err)
                continue
            what = {
                "damaged": "damaged (not an SQLite database); moved it aside and rebuilt it",
                "removed": "removed; made a new one",
                "replaced": "replaced by another file; opened that one",
            }[fault]
            self.warn_once(
                f"todo-ls: the state store {store.path} was {what} (pauses and subscriptions "
                "made by command before that are not in it)"
            )
            self.files_changed()

    def close_store(self) -> None:
        """Write what waits for the store, then close it (at shutdown, or for another one)."""
        watch, self._store_watch = self._store_watch, None
        if watch is not None:
            watch.cancel()
        writes, self._store_writes = self._store_writes, None
        if writes is not None:
            writes.close()
        summaries, self._summary_writes = self._summary_writes, None
        if summaries is not None:
            self.workspace_index.warm({}, None)
            summaries.close()
        if self.store is not None:
            self.store.close()
            self.store = None

    def from_any_thread(self, call: Callable[[str], None]) -> Callable[[str], None]:
        """`call`, made safe to call from the store thread: it runs on the server's loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a test driving the server object): call directly
            return call

        def on_loop(message: str) -> None:
            loop.call_soon_threadsafe(call, message)

        return on_loop

    # --- change propagation --------------------------------------------------------------

    def set_hooks(self, *, status: Callable[[], None], subscriptions: Callable[[], None]) -> None:
        """Wire the status publisher and the subscription-change fan-out (done by the app)."""
        self._status_hook = status
        self._subscription_hook = subscriptions

    def status_changed(self) -> None:
        """Something `todoLs/status` shows may have changed: publish (coalesced)."""
        self._status_hook()

    def files_changed(self) -> None:
        """Items of subscribed files may have changed: status and the supervisor."""
        self.status_changed()
        self.supervision.files_changed()

    async def refresh_settings(self, pushed: object = None) -> None:
        """Re-read the settings (configuration.py, `refresh`) and bring every part derived
        from them up to date: the store's place, the views and watchers, the supervisor."""
        change = await self.configuration.refresh(pushed)
        if change is None:
            return
        if change.store_moved:
            self.open_store()
        self.subscriptions_changed()
        self.supervision.settings_changed()

    def subscriptions_changed(self) -> None:
        """The subscription set or the settings changed: refresh everything derived."""
        self.generation += 1
        self._subscription_hook()
        self.files_changed()

    def document_closed(self, uri: str) -> None:
        """The editor closed `uri`: drop what the features cached for it."""
        for cache in self.document_caches:
            cache.drop(uri)

    def spawn(self, coro: Any, what: str) -> asyncio.Task[Any]:
        """Run `coro` in the background; failures are logged, never raised."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("%s failed: %s", what, t.exception(), exc_info=t.exception())

        task.add_done_callback(done)
        return task
