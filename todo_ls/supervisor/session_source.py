"""The seam between the supervisor service and whatever watches agent sessions.

A `SessionSource` is one kind of supervised session: the supervisor runtime (the sessions of an
OpenCode or Kilo server, `supervisor/runtime.py`) and the sessions of agents reached through
hooks, kept in the shared store (`supervisor/hook_sessions.py`). The supervisor service
(`supervisor/service.py`) holds a list of sources and asks each the same questions: it lists
their records (`session_record.SupervisedSession`), merges their state words, and sends every
command about a session to the source that owns it. A new kind of session is one more class
with these methods, added to that list; neither process that runs the service changes.

Command answers keep the wire shape of docs/status-and-commands.md (`{sent, skipped}`,
`{sessions: [{id, state}]}`) so that the service only concatenates them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from todo_ls.payloads import NudgeResult, SessionItem, SessionsResult
    from todo_ls.supervisor.policy import SessionState
    from todo_ls.supervisor.session_record import SupervisedSession
    from todo_ls.todos.editor_list import ListedTodo

# The status word of a source that cannot see its sessions (no OpenCode server reachable).
DISCONNECTED: Literal["disconnected"] = "disconnected"
# `todoLs.nudge` of a session id no source owns.
NOT_SUPERVISED = "not a supervised session"
# `todoLs.nudge` without a session id when no source has one.
NO_SESSION = "no supervised session"


class SessionSource(Protocol):
    """One kind of supervised session, as the supervisor service lists and commands it. A
    `folder` argument is a workspace folder's key (its path): only the sessions that folder's
    status lists; None: every folder's."""

    def owns(self, session_id: str) -> bool:
        """The session is this source's: the commands naming it go here."""
        ...

    def sessions(self, folder: str | None = None) -> list[SupervisedSession]:
        """The records of the listed sessions, for `todoLs/status`."""
        ...

    def state_word(
        self, folder: str | None = None
    ) -> SessionState | Literal["disconnected"] | None:
        """The most urgent state of the listed sessions, `disconnected` while the source cannot
        see its sessions, None when it lists none."""
        ...

    def session_list_items(self, folder: str | None = None) -> list[SessionItem]:
        """Every item of the listed sessions' own lists, for `todoLs.list`
        (`todos.editor_list.session_items`)."""
        ...

    def listed_todos(self, session_id: str) -> tuple[ListedTodo, ...]:
        """The session's own list as the editor shows it: `todoLs.toggle`'s `index` is a
        place in it."""
        ...

    def read_only(self, session_id: str, item: ListedTodo) -> str | None:
        """Why `todoLs.toggle` may not change this item of the session's list (a list only the
        agent writes), or None when todo-ls's store holds it."""
        ...

    def todos_written(self, session_id: str) -> None:
        """`todoLs.toggle` changed the session's list in the store."""
        ...

    async def nudge(self, session_id: str | None, folder: str | None = None) -> NudgeResult:
        """`todoLs.nudge` of one owned session or (None) of every listed one: `{sent, skipped}`
        naming only this source's sessions."""
        ...

    def pause(self, session_id: str | None, folder: str | None = None) -> SessionsResult:
        """`todoLs.pause` (stored, so every todo-ls process honours it): `{sessions}`."""
        ...

    def resume(self, session_id: str | None, folder: str | None = None) -> SessionsResult:
        """`todoLs.resume`: lift any pause and start a new episode: `{sessions}`."""
        ...


def only_the_agent(owner: str) -> str:
    """The refusal of a toggle of an item in a list the agent keeps (`owner`: whose list, e.g.
    `the agent host's`, `claude-code's`)."""
    return (
        f"this item is in {owner} own todo list, which only the agent can change; "
        "ask the agent to update it"
    )
