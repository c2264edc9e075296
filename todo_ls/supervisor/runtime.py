"""The supervisor runtime: host events in, nudges out (asyncio edge of the pure core).

It consumes `host.watch()` and feeds the `Tracker`. Every input (a host event, a file change,
a command, a store change made by another process, a timer, a send's outcome) only marks the
sessions it concerns dirty; one settle step (`_settle`) re-decides the dirty ones with the
policy, stores each one's `Evaluation` in its `Supervised` record, arms its one timer, starts a
nudge that is due and publishes once. Readers (the status, the session records, the commands'
answers) read the stored evaluations and never call the policy, so they cannot disagree.
Delivery (claim, re-check, send, record) is `delivery.py`'s, which returns an `Outcome` applied
here. Nothing that goes wrong in an event or a host call escapes: it is logged and shows in the
status.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Iterable
from typing import Literal

from todo_ls.core import events as ev
from todo_ls.core.clock import Clock
from todo_ls.hosts.base import Capability, Host, HostError
from todo_ls.payloads import (
    HostStatus,
    NudgeResult,
    NudgeSkip,
    SessionItem,
    SessionsResult,
    SupervisorStatus,
)
from todo_ls.settings.model import SupervisorSettings
from todo_ls.store import Store
from todo_ls.supervisor import skips
from todo_ls.supervisor.activity import Effect, SessionGone, Tracker, TreeView
from todo_ls.supervisor.announce import Announcer
from todo_ls.supervisor.background import Background
from todo_ls.supervisor.connection import HostConnection
from todo_ls.supervisor.delivery import Delivery, NudgeSent, Outcome, one_line
from todo_ls.supervisor.effects import store_effect
from todo_ls.supervisor.policy import (
    Decision,
    OpenSet,
    SessionState,
    aggregate_state,
    evaluate,
    read_history,
)
from todo_ls.supervisor.scope import Scope
from todo_ls.supervisor.session_record import SupervisedSession
from todo_ls.supervisor.session_source import DISCONNECTED, NOT_SUPERVISED, only_the_agent
from todo_ls.supervisor.supervised import Evaluation, Supervised, listed
from todo_ls.supervisor.workspace_items import Workspace
from todo_ls.todos.editor_list import ListedTodo, session_items

log = logging.getLogger(__name__)

# Nudge history of sessions quiet for this long is forgotten when supervision starts.
LEDGER_RETENTION_S = 30 * 24 * 3600.0


def process_owner() -> str:
    """An id for this process in the claim ledger."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Runtime:
    """One supervisor for one host connection and one workspace; to the supervisor service,
    the `SessionSource` of that host's sessions (session_source.py)."""

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
        self._store = store
        self._clock = clock
        self._workspace = workspace
        self.owner = owner or process_owner()
        self._on_change = on_change
        self._on_nudge = on_nudge
        self.tracker = Tracker()
        self.scope = Scope(self.tracker, workspace, store, settings, folder_settings)
        self.connection = HostConnection(
            connect, clock, workspace.folders, self.handle, self._fault, rediscover
        )
        self._records: dict[str, Supervised] = {}  # root sessions: `forget` removes them
        self._dirty: set[str] = set()  # to re-decide at the next settle
        self._publish = False  # the status changed: publish at the next settle
        self._settling = False
        self._background = Background()
        self._spawn = self._background.spawn
        self._announcer = Announcer(self._spawn, on_user_message)
        self._delivery = Delivery(store, clock, self.tracker, self.decide, self.owner)
        self._main: asyncio.Task[None] | None = None
        self._stopped = False

    @property
    def settings(self) -> SupervisorSettings:
        """The runtime's own settings (the connection's; sessions outside every folder)."""
        return self.scope.settings

    @settings.setter
    def settings(self, settings: SupervisorSettings) -> None:
        self.scope.settings = settings

    @property
    def host(self) -> Host | None:
        """The host client, while there is one."""
        return self.connection.host

    @property
    def connected(self) -> bool:
        return self.connection.connected

    @property
    def error(self) -> str | None:
        """The fault the status shows (the connection's, or a failed nudge's)."""
        return self.connection.error

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
            self._main = asyncio.get_running_loop().create_task(self.connection.run())

    async def stop(self) -> None:
        """Cancel everything and close the host client."""
        self._stopped = True  # nothing cancelled below may arm a timer or start a send
        for record in self._records.values():
            record.arm(None)
        await self._background.cancel(self._main)
        self._main = None
        await self._delivery.close()
        await self.connection.close()

    async def drain(self) -> None:
        """Wait until no background work (sends, lookups) is left: for tests and shutdown."""
        await self._background.drain()

    # --- inputs: each marks sessions dirty, then settles -------------------------------------

    def handle(self, event: ev.HostEvent) -> None:
        """Feed one host event; never raises."""
        try:
            self._handle(event)
        except Exception:
            log.exception("supervisor: could not handle %s", type(event).__name__)
        self._settle()

    def _handle(self, event: ev.HostEvent) -> None:
        now = self._clock.now()
        if isinstance(event, ev.Connected | ev.Disconnected):
            self.connection.connected = isinstance(event, ev.Connected)
            self._set_error(event.error if isinstance(event, ev.Disconnected) else None)
            self._publish = self._publish or self.connected
            return
        session = self.tracker.sessions.get(getattr(event, "session_id", ""))
        repeat = skips.repeats_busy(event, session)
        ended_before = skips.repeats_end(event, session)
        applied = self.tracker.apply(event, now)
        for effect in applied.effects:
            self._persist(effect, now)
        if isinstance(event, ev.SessionUpdated | ev.Resynced):
            self._publish = True
        if not applied.structural:
            return  # only the quiet clock moved: the armed timer re-evaluates in time
        for sid in applied.touched:
            record = self._records.setdefault(sid, Supervised(sid))
            self._look_up(record)
            decision = None if record.evaluation is None else record.evaluation.decision
            if (
                ended_before
                and not applied.effects
                and skips.decided_calmly(decision, record.sending)
            ):
                continue  # the end was decided already: this repeat moved the quiet clock only
            now_session = self.tracker.sessions.get(sid)
            if not skips.still_working(event, repeat, now_session, decision, record.sending):
                self._dirty.add(sid)
            elif isinstance(event, skips.COUNTED_WORK):
                self._publish = True  # the decision stands, the status's counts moved

    def files_changed(self) -> None:
        """Subscribed files, their items or the workspace folders changed: every session may
        decide differently."""
        self.connection.sync_folders()
        self._mark(s.id for s in self.tracker.roots())

    def store_changed(self) -> None:
        """Another process wrote to the shared store (a pause, a nudge, a todo list): every
        supervised session may decide differently."""
        self._mark(sid for sid, r in self._records.items() if r.evaluation is not None)

    def todos_written(self, session_id: str) -> None:
        """The store's list changed the open set: decide again."""
        if session_id in self.tracker.sessions:
            self._mark([session_id])

    def _mark(self, session_ids: Iterable[str]) -> None:
        for sid in session_ids:
            self._records.setdefault(sid, Supervised(sid))
            self._dirty.add(sid)
        self._settle()

    def _wake(self, record: Supervised) -> None:
        record.timer = None
        self._mark([record.id])

    def _persist(self, effect: Effect, now: float) -> None:
        sid = effect.session_id
        if isinstance(effect, SessionGone):
            self.forget(sid)
        elif self.scope.in_scope(sid):
            pause_on_interrupt = self.scope.settings_of(sid).pause_on_interrupt
            store_effect(self._store, effect, pause_on_interrupt, now)

    def _look_up(self, record: Supervised) -> None:
        """Learn the directory and parent of a session no event described yet. The answer
        comes back as an event; a 404 forgets the session, so its next event asks again."""
        session = self.tracker.sessions.get(record.id)
        host = self.host
        if (
            session is None
            or session.directory is not None
            or record.looked_up
            or host is None
            or Capability.SESSION_INFO not in host.capabilities
        ):
            return
        record.looked_up = True

        async def fetch() -> None:
            try:
                info = await host.session(record.id)
            except HostError:
                record.looked_up = False  # unanswered (the host went down): ask again later
                raise
            self.handle(ev.SessionDeleted(record.id) if info is None else ev.SessionUpdated(info))

        self._spawn(fetch(), f"look up {record.id}")

    def forget(self, session_id: str) -> None:
        """The only place a session leaves: its timer, evaluation, hold and lookup go."""
        record = self._records.pop(session_id, None)
        self._dirty.discard(session_id)
        if record is not None and record.unsupervise():
            self._publish = True

    # --- the one place that decides ---------------------------------------------------------

    def _settle(self) -> None:
        """Re-decide the dirty sessions, store their evaluations, arm their timers, start the
        nudges due, then publish once if anything the status shows moved."""
        if self._settling:
            return  # an input during the settle: its sessions join the loop below
        self._settling = True
        try:
            while self._dirty and not self._stopped:
                record = self._records.get(self._dirty.pop())
                if record is not None:
                    try:
                        self._redecide(record)
                    except Exception:
                        log.exception("supervisor: evaluation of %s failed", record.id)
            self._dirty.clear()
        finally:
            self._settling = False
        if self._publish:
            self._publish = False
            self._changed()

    def _redecide(self, record: Supervised) -> None:
        sid = record.id
        session = self.tracker.sessions.get(sid)
        if session is None or not session.engaged or not self.scope.in_scope(sid):
            # Sessions idle since before we watched are not ours to nudge (nor to list).
            self._publish = record.unsupervise() or self._publish
            return
        decision, view, items = self.decide(sid)
        nudges = self._store.episode_nudge_count(sid)
        todos, home = self.scope.listed_todos(sid), self.scope.home(sid)
        record.evaluation = Evaluation(decision, len(items.items), nudges, todos, home)
        wake = decision.wake_at
        record.arm(None if wake is None else self._clock.call_at(wake, lambda: self._wake(record)))
        shown = record.evaluation.visible(view)
        if record.shown != shown:
            record.shown = shown
            self._publish = True
        if decision.send and self.connected and not record.sending:
            record.sending = True
            self._spawn(self._send(sid, manual=False), f"nudge {sid}")

    def decide(self, session_id: str) -> tuple[Decision, TreeView, OpenSet]:
        """The policy's decision for a root session now, with the view and open set it read."""
        view = self.tracker.view(session_id)
        items = self.scope.open_items(session_id)
        pause = self._store.paused(session_id)
        record = self._records.get(session_id)
        history = read_history(self._store, session_id, items.hash)
        settings, now = self.scope.settings_of(session_id), self._clock.now()
        hold = None if record is None else record.hold_until
        reason = pause.reason if pause else None
        return evaluate(view, items, settings, now, reason, history, hold), view, items

    # --- sending ----------------------------------------------------------------------------

    async def _send(self, session_id: str, manual: bool) -> str | None:
        """Deliver one nudge and apply its outcome. Returns None when sent, else why not."""
        try:
            host = self.host
            if host is None or not self.connected:
                return "host not connected"
            settings = self.scope.settings_of(session_id)
            outcome = await self._delivery.deliver(host, session_id, manual, settings)
            return self._apply(host, session_id, outcome)
        except Exception as err:
            log.exception("supervisor: nudge of %s failed", session_id)
            return f"failed: {one_line(err)}"
        finally:
            record = self._records.get(session_id)
            if record is not None:
                record.sending = False
            if session_id in self.tracker.sessions:
                self._mark([session_id])

    def _apply(self, host: Host, session_id: str, outcome: Outcome) -> str | None:
        """What a delivery came to, applied to the session's record and the status."""
        if outcome.gone:
            self.handle(ev.SessionDeleted(session_id))  # as if the host had reported it
        record = self._records.get(session_id)
        if record is not None and (outcome.hold_until is not None or outcome.sent is not None):
            record.hold_until = outcome.hold_until
        if outcome.error is not None:
            self._set_error(outcome.error)
        sent = outcome.sent
        if sent is None:
            return outcome.why
        if self.connected:
            # Connected, the only error left is a failed nudge's, and this one got through:
            # the status heals now, not at the next reconnect.
            self._set_error(None)
        if self.settings.toasts:
            session = self.tracker.sessions.get(session_id)
            self._announcer.announce(host, (session and session.title) or session_id, sent.headline)
        if self._on_nudge is not None:
            self._on_nudge(sent)
        return None

    # --- commands ---------------------------------------------------------------------------

    def _targets(self, session_id: str | None, folder: str | None = None) -> list[str]:
        if session_id is not None:
            return [session_id]
        return [sid for sid, _ in listed(self._records, folder)]

    async def nudge(self, session_id: str | None, folder: str | None = None) -> NudgeResult:
        """The `todoLs.nudge` command: nudge now (still claims, skips working / waiting);
        without a session, every supervised session (of `folder` when given)."""
        sent: list[str] = []
        skipped: list[NudgeSkip] = []
        for sid in self._targets(session_id, folder):
            record = self._records.get(sid)
            if record is None or not self.scope.in_scope(sid):
                skipped.append({"sessionID": sid, "reason": NOT_SUPERVISED})
                continue
            if record.sending:
                skipped.append({"sessionID": sid, "reason": "a nudge is being sent"})
                continue
            record.sending = True
            why = await self._send(sid, manual=True)
            if why is None:
                sent.append(sid)
            else:
                skipped.append({"sessionID": sid, "reason": why})
        return {"sent": sent, "skipped": skipped}

    def pause(self, session_id: str | None, folder: str | None = None) -> SessionsResult:
        """The `todoLs.pause` command (persisted: every todo-ls process honours it)."""
        now = self._clock.now()
        targets = [sid for sid in self._targets(session_id, folder) if self.scope.in_scope(sid)]
        for sid in targets:
            self._store.pause(sid, "user", now)
        self._mark(targets)
        return self._session_states(targets)

    def resume(self, session_id: str | None, folder: str | None = None) -> SessionsResult:
        """The `todoLs.resume` command: lifts any pause and starts a new episode."""
        now = self._clock.now()
        targets = [sid for sid in self._targets(session_id, folder) if self.scope.in_scope(sid)]
        if session_id is None:  # and the paused sessions of the folder no status lists
            targets += [sid for sid in self.scope.paused(folder) if sid not in targets]
        for sid in targets:
            self._store.resume(sid)
            self._store.start_episode(sid, now)
            if (record := self._records.get(sid)) is not None:
                record.hold_until = None
        self._mark(targets)
        return self._session_states(targets)

    def _session_states(self, targets: list[str]) -> SessionsResult:
        found = [(sid, r.evaluation if (r := self._records.get(sid)) else None) for sid in targets]
        return {
            "sessions": [{"id": sid, "state": e.decision.state if e else None} for sid, e in found]
        }

    # --- readers: the stored evaluations ----------------------------------------------------

    def owns(self, session_id: str) -> bool:
        """A session of the watched host (listed or not: a manual nudge may still reach it)."""
        return session_id in self.tracker.sessions

    def sessions(self, folder: str | None = None) -> list[SupervisedSession]:
        """Each supervised session of the workspace (of `folder` when given)."""
        now = self._clock.now()
        kind = self.settings.host if self.host is None else self.host.info.kind
        return [
            found.record(sid, self.tracker.view(sid), kind, now)
            for sid, found in listed(self._records, folder)
        ]

    def session_list_items(self, folder: str | None = None) -> list[SessionItem]:
        """The own-list items of every listed session (of `folder`), for `todoLs.list`."""
        return [
            item
            for sid, found in listed(self._records, folder)
            for item in session_items(sid, found.todos)
        ]

    def listed_todos(self, session_id: str) -> tuple[ListedTodo, ...]:
        """The session's own list as the editor shows it, read now (for a toggle)."""
        return self.scope.listed_todos(session_id)

    def home(self, session_id: str) -> str | None:
        """The workspace folder whose status lists the session (scope.py)."""
        return self.scope.home(session_id)

    def read_only(self, session_id: str, item: ListedTodo) -> str | None:
        """OpenCode 1.x's `todowrite` list has no route to write it, and a store copy would
        disagree with the list the agent sees: only the store's items can be toggled."""
        return only_the_agent("the agent host's") if item.source == "host" else None

    def host_status(self) -> HostStatus:
        """The `supervisor.host` part of `todoLs/status`: the watched server."""
        return self.connection.status(self.settings)

    def status(self, folder: str | None = None) -> SupervisorStatus:
        """The `supervisor` part of `todoLs/status` for this runtime (of `folder` when given)."""
        sessions = [record.to_wire() for record in self.sessions(folder)]
        return {"enabled": True, "host": self.host_status(), "sessions": sessions}

    def state_word(
        self, folder: str | None = None
    ) -> SessionState | Literal["disconnected"] | None:
        """The most urgent state over the workspace's (or `folder`'s) sessions, None if none."""
        if not self.connected:
            return DISCONNECTED
        return aggregate_state(found.decision.state for _, found in listed(self._records, folder))

    def _set_error(self, error: str | None) -> None:
        if error != self.connection.error:
            self.connection.error = error
            self._publish = True

    def _fault(self, error: str | None) -> None:
        self._set_error(error)
        self._settle()

    def _changed(self) -> None:
        if self._on_change is not None:
            try:
                self._on_change()
            except Exception:
                log.exception("supervisor: status callback failed")
