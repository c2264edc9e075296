"""The supervisor runtime: host events in, nudges out (asyncio edge of the pure core).

It consumes `host.watch()`, feeds the `Tracker`, evaluates the policy for the touched root
sessions, arms one timer per session at the decision's `wake_at`, and sends a nudge only after
claiming it in the shared store (so several todo-ls processes send exactly one) and re-checking,
right before sending, that the session is still idle. Nothing that goes wrong in an event or a
host call escapes: it is logged and shows in the status.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from todo_ls.checklist import file_items
from todo_ls.checklist.model import FileItem
from todo_ls.hosts.base import Capability, Host, HostError
from todo_ls.settings.model import SupervisorSettings
from todo_ls.store import Store, StoreError
from todo_ls.supervisor import events as ev
from todo_ls.supervisor.activity import (
    CONTINUING_FINISHES,
    Applied,
    Effect,
    Interrupted,
    SessionGone,
    Tracker,
    TreeView,
    TurnFailed,
)
from todo_ls.supervisor.clock import Clock, Timer
from todo_ls.supervisor.policy import (
    LIFTED_BY_PROMPT,
    Decision,
    NudgeHistory,
    OpenSet,
    SessionState,
    aggregate_state,
    describe,
    evaluate,
    open_set,
    read_history,
)
from todo_ls.supervisor.session_record import SupervisedSession
from todo_ls.supervisor.session_source import DISCONNECTED, NOT_SUPERVISED, only_the_agent
from todo_ls.supervisor.shared_fetch import SharedFetch
from todo_ls.supervisor.text import Nudge, announcement
from todo_ls.todos.editor_list import ListedTodo, combined, session_items, todo_summary
from todo_ls.todos.model import merged_with_host, stored_todos
from todo_ls.workspace import WorkspaceIndex, innermost_folder

log = logging.getLogger(__name__)

CLAIM_EXPIRY_S = 60.0  # a claim whose holder died stops blocking others after this
LOST_CLAIM_RETRY_S = 10.0  # another process holds the claim: look again after this
RECONNECT_MAX_S = 30.0
# Failed reconnects in a row after which a discovered server counts as gone (see `run`).
GONE_AFTER_DROPS = 2
# Nudge history of sessions quiet for this long is forgotten when supervision starts.
LEDGER_RETENTION_S = 30 * 24 * 3600.0
# Events that only show work going on (see `Runtime._still_working`); tools and steps
# also change the counts the status shows ("1 tool").
_COUNTED_WORK = (ev.ToolStarted, ev.ToolEnded, ev.StepStarted, ev.StepEnded)
_STILL_WORKING_EVENTS = (ev.SpanStarted, ev.SpanEnded, ev.ToolProgress, *_COUNTED_WORK)


class Workspace(Protocol):
    """What the runtime needs from its side (the language server or the headless command)."""

    def folders(self) -> Sequence[str]:
        """Absolute paths of the workspace folders."""
        ...

    def file_items(self, folder: str) -> list[FileItem]:
        """Every task item of the folder's subscribed files, closed ones included (fresh)."""
        ...


class IndexWorkspace:
    """`Workspace` over the language server's `WorkspaceIndex` (also used headless): every
    item of the subscribed files, closed ones included, so nudges can say "3 of 7 left"."""

    def __init__(self, index: WorkspaceIndex) -> None:
        self._index = index

    def folders(self) -> Sequence[str]:
        return [folder.key for folder in self._index.folders]

    def file_items(self, folder: str) -> list[FileItem]:
        found: list[FileItem] = []
        for candidate in self._index.folders:
            if candidate.key == folder:
                for path in self._index.subscribed(candidate):
                    state = self._index.state(path)
                    found += file_items(state.checklist, candidate.relative(path))
        return found


@dataclass(frozen=True)
class NudgeSent:
    session_id: str
    kind: str
    number: int
    headline: str


def process_owner() -> str:
    """An id for this process in the claim ledger."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Runtime:
    """One supervisor for one host connection and one workspace; to the language server, the
    `SessionSource` of that host's sessions (session_source.py)."""

    def __init__(
        self,
        connect: Callable[[], Awaitable[Host]],
        store: Store,
        settings: SupervisorSettings,
        clock: Clock,
        workspace: Workspace,
        *,
        owner: str | None = None,
        on_change: Callable[[], None] | None = None,
        on_user_message: Callable[[str], None] | None = None,
        on_nudge: Callable[[NudgeSent], None] | None = None,
        folder_settings: Callable[[str], SupervisorSettings | None] | None = None,
        rediscover: bool = False,
    ) -> None:
        """`settings` hold the connection and apply to sessions outside every workspace folder;
        `folder_settings` gives a folder's own (by folder path), read at each decision.
        `rediscover`: `connect` finds the server itself (no URL setting), so when the server
        is gone `connect` runs again rather than the host reconnecting to the old address."""
        self._connect = connect
        self._rediscover = rediscover
        self._store = store
        self.settings = settings
        self._clock = clock
        self._workspace = workspace
        self.owner = owner or process_owner()
        self._on_change = on_change
        self._on_user_message = on_user_message
        self._on_nudge = on_nudge
        self._folder_settings = folder_settings
        self.tracker = Tracker()
        self.host: Host | None = None
        self.connected = False
        self.error: str | None = None
        self._timers: dict[str, Timer] = {}
        self._decisions: dict[str, Decision] = {}
        self._signatures: dict[str, tuple[Any, ...]] = {}
        self._hold: dict[str, float] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sending: set[str] = set()
        self._asked_info: set[str] = set()
        self._host_folders: tuple[str, ...] | None = None  # last handed to `host`
        # (title, headline) of nudges the human was not told of yet
        self._unannounced: list[tuple[str, str]] = []
        self._announcing = False
        self._busy_snapshots: tuple[Host, SharedFetch[Mapping[str, ev.BusyKind]]] | None = None
        self._main: asyncio.Task[None] | None = None
        self._stopped = False

    @property
    def store(self) -> Store:
        return self._store

    # --- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Start watching in the background (on the running loop)."""
        if self._main is None:
            forgotten = self._store.forget_dormant(self._clock.now() - LEDGER_RETENTION_S)
            if forgotten:
                log.info("supervisor: forgot the nudge history of %d dormant sessions", forgotten)
            self._main = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        """Cancel everything and close the host client."""
        self._stopped = True  # nothing cancelled below may arm a timer or start a send
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        tasks = [t for t in (self._main, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._main = None
        if self._busy_snapshots is not None:
            await self._busy_snapshots[1].close()
            self._busy_snapshots = None
        if self.host is not None:
            with contextlib.suppress(Exception):
                await self.host.aclose()
            self.host = None

    async def run(self) -> None:
        """Connect (retrying with back-off) and consume the host's events until cancelled."""
        attempt = 0
        while True:
            try:
                if self.host is None:
                    self.host = await self._connect()
                    self._host_folders = None  # the folders may have changed meanwhile
                    self._set_error(None)
                self._sync_folders()
                attempt = 0
                drops = 0
                async for event in self.host.watch():
                    self.handle(event)
                    attempt = 0
                    if isinstance(event, ev.Connected | ev.Disconnected):
                        drops = drops + 1 if isinstance(event, ev.Disconnected) else 0
                    if self._rediscover and drops >= GONE_AFTER_DROPS:
                        break
                else:
                    raise HostError("protocol", "the event stream ended")
                # A discovered server that does not come back may run again elsewhere (an
                # OpenCode TUI restarted on another port): look for it again.
                log.info("supervisor: %s is gone; looking for OpenCode again", self.host.info.url)
                host, self.host = self.host, None
                with contextlib.suppress(Exception):
                    await host.aclose()
            except asyncio.CancelledError:
                raise
            except Exception as err:
                self.connected = False
                error = _one_line(err)
                if error != self.error:  # a lasting fault is logged once, not at every retry
                    log.warning("supervisor: %s; retrying", error)
                self._set_error(error)
            attempt += 1
            await self._clock.sleep(min(RECONNECT_MAX_S, 2.0 ** min(attempt, 5)))

    async def drain(self) -> None:
        """Wait until no background work (sends, lookups) is left: for tests and shutdown."""
        for _ in range(1000):
            await asyncio.sleep(0)
            pending = [t for t in self._tasks if not t.done()]
            if not pending:
                return
            await asyncio.wait(pending)

    # --- events -----------------------------------------------------------------------------

    def handle(self, event: ev.HostEvent) -> None:
        """Feed one host event; never raises."""
        try:
            self._handle(event)
        except Exception:
            log.exception("supervisor: could not handle %s", type(event).__name__)

    def _handle(self, event: ev.HostEvent) -> None:
        now = self._clock.now()
        if isinstance(event, ev.Connected):
            self.connected = True
            self._set_error(None)
            self._changed()
            return
        if isinstance(event, ev.Disconnected):
            self.connected = False
            self._set_error(event.error)
            return
        repeat = self._repeats_busy(event)
        ended_before = self._repeats_end(event)
        applied: Applied = self.tracker.apply(event, now)
        for effect in applied.effects:
            self._persist(effect, now)
        if isinstance(event, ev.SessionUpdated | ev.Resynced):
            self._changed()
        if not applied.structural:
            return  # only the quiet clock moved: the armed timer re-evaluates in time
        for sid in applied.touched:
            self._ask_info(sid)
            if ended_before and not applied.effects and self._decided_calmly(sid):
                continue  # the end was decided already: this repeat moved the quiet clock only
            if not self._still_working(sid, event, repeat):
                self.evaluate(sid)
            elif isinstance(event, _COUNTED_WORK):
                self._changed()  # the decision stands, the status's counts moved

    def _repeats_busy(self, event: ev.HostEvent) -> bool:
        """A turn start of a session that is busy and not retrying: 1.x repeats its busy
        status with every step, and such a repeat changes nothing but the quiet clock."""
        if not isinstance(event, ev.TurnStarted):
            return False
        session = self.tracker.sessions.get(event.session_id)
        return session is not None and session.busy == "busy" and session.retry_next_at is None

    def _repeats_end(self, event: ev.HostEvent) -> bool:
        """An end of turn (idle, completed, or a final step) of a session whose turn has already
        ended, with nothing in flight since: 1.x ends every turn three times (the final step,
        `session.status` idle, `session.idle`). The tracker then only moves the quiet clock
        (`Tracker._end_turn`); the idle rules count from `idle_since`, which does not move, and
        what depends on the time (the settle, the rate limit, a hold) has its timer armed."""
        if isinstance(event, ev.TurnEnded):
            final = event.outcome in ("idle", "completed")
        elif isinstance(event, ev.StepEnded):
            final = event.finish is not None and event.finish not in CONTINUING_FINISHES
        else:
            return False
        session = self.tracker.sessions.get(event.session_id)
        return (
            final
            and session is not None
            and session.ended_confirmed
            and session.ended_seq == session.turn_seq
            and not session.in_flight
        )

    def _decided_calmly(self, session_id: str) -> bool:
        """The session has a decision that starts nothing (no nudge due) and is not sending:
        re-deciding it on an event that changes nothing it reads would come out the same."""
        decision = self._decisions.get(session_id)
        return decision is not None and not decision.send and session_id not in self._sending

    def _still_working(self, session_id: str, event: ev.HostEvent, repeat: bool) -> bool:
        """Work goes on: a span, tool or step event (or a repeated busy status) of a session
        that was working and still has work of its own in flight changes no decision.
        Skipping the evaluation (most events of a busy stream) leaves the stall timer armed
        earlier; when it falls due, the evaluation re-arms it from the latest activity."""
        decision = self._decisions.get(session_id)
        session = self.tracker.sessions.get(session_id)
        return (
            (repeat or isinstance(event, _STILL_WORKING_EVENTS))
            and decision is not None
            and decision.state == "working"
            and session is not None
            and session.engaged
            and session.in_flight
            and not session.permissions
            and session_id not in self._sending
        )

    def _persist(self, effect: Effect, now: float) -> None:
        if isinstance(effect, SessionGone):
            self._drop(effect.session_id)
            return
        if not self._in_scope(effect.session_id):
            return
        if isinstance(effect, Interrupted):
            if self.settings_of(effect.session_id).pause_on_interrupt:
                log.info("supervisor: %s %s: paused", effect.session_id, effect.why)
                # Keep a pause command's pause: it waits for resume, this one a prompt lifts.
                self._store.pause(effect.session_id, "interrupt", now, keep_user_pause=True)
            return
        if isinstance(effect, TurnFailed):
            log.warning(
                "supervisor: %s: the turn failed (%s): paused until you write or resume",
                effect.session_id,
                effect.why,
            )
            self._store.pause(effect.session_id, "error", now, keep_user_pause=True)
            return
        pause = self._store.paused(effect.session_id)
        if pause is not None and pause.reason in LIFTED_BY_PROMPT:
            log.info("supervisor: %s: the user wrote; pause lifted", effect.session_id)
            self._store.resume(effect.session_id)
        self._store.start_episode(effect.session_id, now)

    def _ask_info(self, session_id: str) -> None:
        """Learn the directory and parent of a session no event described yet."""
        session = self.tracker.sessions.get(session_id)
        host = self.host
        if (
            session is None
            or session.directory is not None
            or session_id in self._asked_info
            or host is None
            or Capability.SESSION_INFO not in host.capabilities
        ):
            return
        self._asked_info.add(session_id)

        async def fetch() -> None:
            try:
                info = await host.session(session_id)
            except HostError:
                # Unanswered (the host went down meanwhile): the session's next event asks
                # again. Asked once and for all, it would stay out of scope, never nudged.
                self._asked_info.discard(session_id)
                raise
            if info is None:
                self.handle(ev.SessionDeleted(session_id))
            else:
                self.handle(ev.SessionUpdated(info))

        self._spawn(fetch(), f"look up {session_id}")

    def _drop(self, session_id: str) -> None:
        timer = self._timers.pop(session_id, None)
        if timer is not None:
            timer.cancel()
        self._decisions.pop(session_id, None)
        self._hold.pop(session_id, None)
        if self._signatures.pop(session_id, None) is not None:
            self._changed()

    # --- evaluation -------------------------------------------------------------------------

    def _folder_of(self, session_id: str) -> str | None:
        session = self.tracker.sessions.get(session_id)
        directory = session.directory if session is not None else None
        return innermost_folder(directory, self._workspace.folders())

    def settings_of(self, session_id: str) -> SupervisorSettings:
        """The settings of the workspace folder the session works in (else the runtime's)."""
        folder = self._folder_of(session_id)
        own = self._folder_settings(folder) if folder and self._folder_settings else None
        return own if own is not None else self.settings

    def _in_scope(self, session_id: str) -> bool:
        """A root session in a folder whose settings supervise it, or anywhere with `all`."""
        session = self.tracker.sessions.get(session_id)
        if session is None or session.parent_id is not None:
            return False
        folder = self._folder_of(session_id)
        if folder is None:
            return self.settings.scope == "all"
        own = self._folder_settings(folder) if self._folder_settings else None
        return own is None or own.enabled

    def _open_items(self, session_id: str) -> OpenSet:
        session = self.tracker.sessions[session_id]
        folder = innermost_folder(session.directory, self._workspace.folders())
        files = self._workspace.file_items(folder) if folder else []
        return open_set(
            merged_with_host(session.todos, stored_todos(self._stored(session_id))), files
        )

    def _stored(self, session_id: str) -> list[Any] | None:
        """The list the agent keeps with todo-ls's MCP tools or a hook host's (shared store,
        any process), raw; None when there is none or it cannot be read."""
        try:
            return self._store.session_todos(session_id)
        except (StoreError, ValueError) as err:
            log.warning("supervisor: cannot read the todo list of %s: %s", session_id, err)
            return None

    def listed_todos(self, session_id: str) -> tuple[ListedTodo, ...]:
        """The session's own list as the editor shows it (the same items as the open set):
        the store's, then the host's (OpenCode 1.x `todowrite`) the store's list lacks."""
        session = self.tracker.sessions.get(session_id)
        host = session.todos if session is not None else ()
        return combined(host, self._stored(session_id))

    def home(self, session_id: str) -> str | None:
        """The workspace folder whose status lists the session: the innermost one holding its
        directory; with scope `all`, a session outside every folder goes to the first one."""
        found = self._folder_of(session_id)
        folders = self._workspace.folders()
        if found is None and self.settings.scope == "all" and folders:
            return os.path.normpath(folders[0])
        return found

    def _history(self, session_id: str, open_hash: str) -> NudgeHistory:
        return read_history(self._store, session_id, open_hash)

    def _decide(self, session_id: str) -> tuple[Decision, TreeView, OpenSet]:
        now = self._clock.now()
        view = self.tracker.view(session_id)
        items = self._open_items(session_id)
        pause = self._store.paused(session_id)
        history = self._history(session_id, items.hash)
        decision = evaluate(
            view,
            items,
            self.settings_of(session_id),
            now,
            pause.reason if pause else None,
            history,
            self._hold.get(session_id),
        )
        return decision, view, items

    def evaluate(self, session_id: str) -> Decision | None:
        """Re-evaluate one root session: re-arm its timer and start a nudge if one is due."""
        try:
            return self._evaluate(session_id)
        except Exception:
            log.exception("supervisor: evaluation of %s failed", session_id)
            return None

    def _evaluate(self, session_id: str) -> Decision | None:
        if self._stopped:
            return None
        session = self.tracker.sessions.get(session_id)
        if session is None or not session.engaged or not self._in_scope(session_id):
            # Sessions idle since before we watched are not ours to nudge (nor to list).
            self._drop(session_id)
            return None
        decision, view, items = self._decide(session_id)
        self._decisions[session_id] = decision
        old = self._timers.pop(session_id, None)
        if old is not None:
            old.cancel()
        if decision.wake_at is not None:
            self._timers[session_id] = self._clock.call_at(
                decision.wake_at, lambda: self._wake(session_id)
            )
        signature = (
            decision.state,
            decision.paused_reason,
            len(items.items),
            view.session.title,
            tuple(sorted(view.counts.items())),
            view.waiting,
        )
        if self._signatures.get(session_id) != signature:
            self._signatures[session_id] = signature
            self._changed()
        if decision.send and self.connected and session_id not in self._sending:
            self._sending.add(session_id)
            self._spawn(self._send(session_id, manual=False), f"nudge {session_id}")
        return decision

    def _wake(self, session_id: str) -> None:
        self._timers.pop(session_id, None)
        self.evaluate(session_id)

    def files_changed(self) -> None:
        """Subscribed files, their items or the workspace folders changed: every session may
        decide differently."""
        self._sync_folders()
        for session in self.tracker.roots():
            self.evaluate(session.id)

    def _sync_folders(self) -> None:
        """Hand the host the workspace folders when they differ from what it has (the 1.x
        busy snapshot and resync ask per folder, so a folder added later must reach it)."""
        folders = tuple(self._workspace.folders())
        if self.host is not None and folders != self._host_folders:
            self.host.set_directories(folders)
            self._host_folders = folders

    # --- sending ----------------------------------------------------------------------------

    async def _send(self, session_id: str, manual: bool) -> str | None:
        """Claim, re-check and deliver one nudge. Returns None when sent, else why not."""
        try:
            return await self._send_claimed(session_id, manual)
        except Exception as err:
            log.exception("supervisor: nudge of %s failed", session_id)
            return f"failed: {_one_line(err)}"
        finally:
            self._sending.discard(session_id)
            if session_id in self.tracker.sessions:
                self.evaluate(session_id)

    async def _send_claimed(self, session_id: str, manual: bool) -> str | None:
        host = self.host
        if host is None or not self.connected:
            return "host not connected"
        decision, view, items = self._decide(session_id)
        kind = "manual" if manual else decision.send
        if kind is None:
            return decision.reason
        now = self._clock.now()
        settings = self.settings_of(session_id)
        min_interval = 0.0 if manual else settings.min_nudge_interval_ms / 1000.0
        claim = self._store.claim_nudge(
            session_id, items.hash, kind, self.owner, now, min_interval, CLAIM_EXPIRY_S
        )
        if claim is None:
            self._hold[session_id] = now + LOST_CLAIM_RETRY_S
            log.info("supervisor: %s: another todo-ls process holds the nudge", session_id)
            return "another todo-ls process is nudging this session"
        sent = False
        sent_at = now
        try:
            why = await self._still_due(host, session_id, manual)
            if why is not None:
                return why
            decision, view, items = self._decide(session_id)
            nudge = Nudge(
                kind,
                claim.number,
                items,
                decision.quiet_for,
                view.quiet_sources,
                settings.stall_minutes,
            )
            # Recorded as sent when the request left: the agent may react (and finish a
            # whole turn) before the host answers, and that is activity after the nudge.
            sent_at = self._clock.now()
            await host.nudge(session_id, nudge.text(), f"todo-ls {kind} nudge #{claim.number}")
            sent = True
        except HostError as err:
            # Unanswered in time, the request may still have reached the agent: it counts as
            # sent, so the retry can never be a second nudge for the same opportunity.
            sent = err.kind == "timeout"
            return self._delivery_failed(session_id, err)
        finally:
            outcome_at = sent_at if sent else self._clock.now()
            self._store.record_claim_outcome(claim.claim_id, sent, outcome_at)
        self._hold.pop(session_id, None)
        if self.connected:
            # Connected, the only error left is a failed nudge's, and this one got through:
            # the status heals now, not at the next reconnect.
            self._set_error(None)
        first = nudge.headline()
        log.info("supervisor: nudged %s: %s", session_id, first)
        self._announce(host, view.session.title or session_id, first)
        if self._on_nudge is not None:
            self._on_nudge(NudgeSent(session_id, kind, claim.number, first))
        self._changed()
        return None

    async def _still_due(self, host: Host, session_id: str, manual: bool) -> str | None:
        """Rule 7: right before sending, the session must still be idle (no race with a
        prompt the user just sent) and the decision unchanged."""
        decision, view, items = self._decide(session_id)
        if view.waiting:
            return "waiting for the user"
        if manual and view.in_flight:
            return "the session is working"
        if not manual and decision.send is None:
            return decision.reason
        if not items.actionable:
            return "nothing open"
        checks_idle = manual or decision.send == "idle"
        if checks_idle and Capability.BUSY_SNAPSHOT in host.capabilities:
            busy = await self._busy_now(host)
            family = {session_id, *(c.id for c in self.tracker.descendants(session_id))}
            now = self._clock.now()
            hit = [sid for sid in family if sid in busy]
            for sid in hit:
                self.tracker.busy_seen(sid, busy[sid], now)
            if hit:
                return "the session is busy"
        if not manual:
            decision, view, items = self._decide(session_id)
            if decision.send is None:
                return decision.reason
        return None

    async def _busy_now(self, host: Host) -> Mapping[str, ev.BusyKind]:
        """The host's busy sessions, from a request sent after this call: nudges due at the
        same moment share one request (shared_fetch.py)."""
        if self._busy_snapshots is None or self._busy_snapshots[0] is not host:
            self._busy_snapshots = (host, SharedFetch(host.busy_sessions))
        return await self._busy_snapshots[1].get()

    def _delivery_failed(self, session_id: str, err: HostError) -> str:
        if err.kind == "not-found":
            log.warning("supervisor: session %s is gone (%s); dropping it", session_id, err)
            self.handle(ev.SessionDeleted(session_id))
            return "session not found"
        now = self._clock.now()
        interval = self.settings_of(session_id).min_nudge_interval_ms / 1000.0
        self._hold[session_id] = now + max(interval, 5.0)
        self._set_error(f"nudge failed: {_one_line(err)}")
        log.warning("supervisor: nudge of %s failed: %s", session_id, err)
        return f"delivery failed: {_one_line(err)}"

    def _announce(self, host: Host, title: str, headline: str) -> None:
        """Tell the human, in the background: a toast in the host's TUI where it can, else the
        editor. One toast at a time: nudges sent while one is on its way share the next, so
        200 sessions nudged together make a few toasts, not 200 requests queued in front of
        the next nudges."""
        if not self.settings.toasts:
            return
        self._unannounced.append((title, headline))
        if not self._announcing:
            self._announcing = True
            self._spawn(self._announce_pending(host), "announcing a nudge")

    async def _announce_pending(self, host: Host) -> None:
        try:
            while self._unannounced:
                message = announcement(self._unannounced)
                self._unannounced = []
                shown = False
                if Capability.TOAST in host.capabilities:
                    try:
                        shown = await host.toast("todo-ls", message, "info")
                    except HostError as err:
                        log.info("supervisor: toast failed: %s", err)
                if not shown and self._on_user_message is not None:
                    self._on_user_message(message)
        finally:
            self._announcing = False

    def _spawn(self, work: Coroutine[Any, Any, Any], what: str) -> None:
        async def guarded() -> None:
            try:
                await work
            except asyncio.CancelledError:
                raise
            except HostError as err:
                # The host refused or did not answer: expected, one line (no traceback).
                log.warning("supervisor: %s failed: %s", what, _one_line(err))
            except Exception:
                log.exception("supervisor: %s failed", what)  # a bug: keep the traceback

        def done(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            # Cancelled before it ran (the runtime stopped): `work` was never started; closed,
            # it is not reported as a coroutine never awaited.
            work.close()

        task = asyncio.get_running_loop().create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(done)

    # --- commands ---------------------------------------------------------------------------

    def _targets(self, session_id: str | None, folder: str | None = None) -> list[str]:
        if session_id is not None:
            return [session_id]
        return [sid for sid in self._decisions if self._listed(sid, folder)]

    def _listed(self, session_id: str, folder: str | None = None) -> bool:
        """A supervised session shown in the status (of `folder` when given)."""
        session = self.tracker.sessions.get(session_id)
        listed = session is not None and self._in_scope(session_id) and session.engaged
        return listed and (folder is None or self.home(session_id) == os.path.normpath(folder))

    async def nudge(self, session_id: str | None, folder: str | None = None) -> dict[str, Any]:
        """The `todoLs.nudge` command: nudge now (still claims, skips working / waiting);
        without a session, every supervised session (of `folder` when given)."""
        sent: list[str] = []
        skipped: list[dict[str, Any]] = []
        for sid in self._targets(session_id, folder):
            if not self._in_scope(sid):
                skipped.append({"sessionID": sid, "reason": NOT_SUPERVISED})
                continue
            if sid in self._sending:
                skipped.append({"sessionID": sid, "reason": "a nudge is being sent"})
                continue
            self._sending.add(sid)
            why = await self._send(sid, manual=True)
            if why is None:
                sent.append(sid)
            else:
                skipped.append({"sessionID": sid, "reason": why})
        return {"sent": sent, "skipped": skipped}

    def pause(self, session_id: str | None, folder: str | None = None) -> dict[str, Any]:
        """The `todoLs.pause` command (persisted: every todo-ls process honours it)."""
        now = self._clock.now()
        targets = [sid for sid in self._targets(session_id, folder) if self._in_scope(sid)]
        for sid in targets:
            self._store.pause(sid, "user", now)
            self.evaluate(sid)
        return self._session_states(targets)

    def resume(self, session_id: str | None, folder: str | None = None) -> dict[str, Any]:
        """The `todoLs.resume` command: lifts any pause and starts a new episode."""
        now = self._clock.now()
        paused = self._store.pauses()
        targets = [sid for sid in self._targets(session_id, folder) if self._in_scope(sid)]
        if session_id is None:
            targets += [
                sid
                for sid in paused
                if sid not in targets
                and self._in_scope(sid)
                and (folder is None or self.home(sid) == os.path.normpath(folder))
            ]
        for sid in targets:
            self._store.resume(sid)
            self._store.start_episode(sid, now)
            self._hold.pop(sid, None)
            self.evaluate(sid)
        return self._session_states(targets)

    def _session_states(self, targets: list[str]) -> dict[str, Any]:
        sessions = []
        for sid in targets:
            decision = self._decisions.get(sid)
            sessions.append({"id": sid, "state": decision.state if decision else None})
        return {"sessions": sessions}

    # --- status -----------------------------------------------------------------------------

    def owns(self, session_id: str) -> bool:
        """A session of the watched host (listed or not: a manual nudge may still reach it)."""
        return session_id in self.tracker.sessions

    def sessions(self, folder: str | None = None) -> list[SupervisedSession]:
        """Each supervised session of the workspace (of `folder` when given)."""
        out = []
        now = self._clock.now()
        kind = self.settings.host if self.host is None else self.host.info.kind
        for sid in sorted(self._decisions):
            if not self._listed(sid, folder):
                continue
            try:
                decision, view, items = self._decide(sid)
            except Exception:
                log.exception("supervisor: status of %s failed", sid)
                continue
            record = SupervisedSession(
                id=sid,
                host=kind,
                title=view.session.title,
                state=decision.state,
                detail=describe(view, decision, now),
                open=len(items.items),
                nudges=self._store.episode_nudge_count(sid),
                paused_reason=decision.paused_reason,
                todos=todo_summary(self.listed_todos(sid)),
            )
            out.append(record)
        return out

    def session_list_items(self, folder: str | None = None) -> list[dict[str, Any]]:
        """The own-list items of every listed session (of `folder`), for `todoLs.list`."""
        found: list[dict[str, Any]] = []
        for sid in sorted(self._decisions):
            if self._listed(sid, folder):
                found += session_items(sid, self.listed_todos(sid))
        return found

    def read_only(self, session_id: str, item: ListedTodo) -> str | None:
        """OpenCode 1.x's `todowrite` list has no route to write it, and a store copy would
        disagree with the list the agent sees: only the store's items can be toggled."""
        return only_the_agent("the agent host's") if item.source == "host" else None

    def todos_written(self, session_id: str) -> None:
        """The store's list changed the open set: decide again."""
        if session_id in self.tracker.sessions:
            self.evaluate(session_id)

    def host_status(self) -> dict[str, Any]:
        """The `supervisor.host` part of `todoLs/status`: the watched server."""
        host: dict[str, Any] = {
            "kind": self.settings.host if self.host is None else self.host.info.kind,
            "url": self.settings.url if self.host is None else self.host.info.url,
            "connected": self.connected,
            "version": None if self.host is None else self.host.info.version,
        }
        if self.error:
            host["error"] = self.error
        return host

    def status(self, folder: str | None = None) -> dict[str, Any]:
        """The `supervisor` part of `todoLs/status` for this runtime alone (of one workspace
        folder when given)."""
        sessions = [record.to_wire() for record in self.sessions(folder)]
        return {"enabled": True, "host": self.host_status(), "sessions": sessions}

    def state_word(
        self, folder: str | None = None
    ) -> SessionState | Literal["disconnected"] | None:
        """The most urgent state over the workspace's (or `folder`'s) sessions (None
        without any)."""
        if not self.connected:
            return DISCONNECTED
        states: list[SessionState] = [
            d.state for sid, d in self._decisions.items() if self._listed(sid, folder)
        ]
        return aggregate_state(states)

    def _set_error(self, error: str | None) -> None:
        if error != self.error:
            self.error = error
            self._changed()

    def _changed(self) -> None:
        if self._on_change is not None:
            try:
                self._on_change()
            except Exception:
                log.exception("supervisor: status callback failed")


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__
