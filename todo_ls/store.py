"""SQLite state shared by every todo-ls process of the user (DESIGN.md "Storage").

CONTRACT SKELETON — the store work replaces the bodies; the signatures are what the server
and the supervisor call.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SubscriptionOverrides:
    """The command-made part of a workspace folder's subscriptions (absolute paths)."""

    added: frozenset[str]
    removed: frozenset[str]


@dataclass(frozen=True)
class Pause:
    session_id: str
    reason: str  # "interrupt" | "no-progress" | "episode-cap" | "user"
    since: float  # epoch seconds


@dataclass(frozen=True)
class NudgeRecord:
    session_id: str
    open_hash: str
    at: float  # epoch seconds
    owner: str
    kind: str  # "idle" | "stall" | "manual"
    state: str  # "claimed" | "sent" | "failed"


@dataclass(frozen=True)
class Claim:
    """A granted claim: the holder may send exactly this nudge, then must settle it."""

    claim_id: int
    session_id: str
    number: int  # nudge number in the session's current episode (1-based)


def default_state_dir(env: dict[str, str] | None = None) -> Path:
    """`$TODO_LS_STATE_DIR`, else `$XDG_STATE_HOME/todo-ls`, else `~/.local/state/todo-ls`."""
    raise NotImplementedError


class Store:
    """One database file, WAL, created with mode 0600; safe across processes."""

    def __init__(self, path: Path) -> None:
        raise NotImplementedError

    # subscriptions
    def subscription_overrides(self, workspace: str) -> SubscriptionOverrides:
        raise NotImplementedError

    def subscribe(self, workspace: str, path: str) -> None:
        raise NotImplementedError

    def unsubscribe(self, workspace: str, path: str) -> None:
        raise NotImplementedError

    # pauses
    def pause(self, session_id: str, reason: str, now: float) -> None:
        raise NotImplementedError

    def resume(self, session_id: str) -> None:
        raise NotImplementedError

    def pauses(self) -> dict[str, Pause]:
        raise NotImplementedError

    # nudges: one atomic claim per opportunity across processes
    def claim_nudge(
        self,
        session_id: str,
        open_hash: str,
        kind: str,
        owner: str,
        now: float,
        min_interval: float,
        expiry: float,
    ) -> Claim | None:
        """Grant a claim unless, for this session, a nudge was sent within `min_interval` or
        another live (unexpired, unsettled) claim exists. One transaction (BEGIN IMMEDIATE)."""
        raise NotImplementedError

    def settle_claim(self, claim_id: int, sent: bool, now: float) -> None:
        raise NotImplementedError

    def nudges(self, session_id: str, since: float = 0.0) -> list[NudgeRecord]:
        """Sent nudges of a session since `since`, oldest first (all processes)."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError
