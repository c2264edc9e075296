"""What the facts the tracker reports (`activity.Effect`) store: the pauses an interrupt or a
failed turn makes, and the new episode a real prompt starts (docs/supervisor.md, "Pauses and
what lifts them"). Stored, so every todo-ls process of the user honours them.
"""

from __future__ import annotations

import logging

from todo_ls.store import Store
from todo_ls.supervisor.activity import Interrupted, TurnFailed, UserPrompted
from todo_ls.supervisor.policy import LIFTED_BY_PROMPT

log = logging.getLogger(__name__)


def store_effect(
    store: Store,
    effect: Interrupted | TurnFailed | UserPrompted,
    pause_on_interrupt: bool,
    now: float,
) -> None:
    """Store one effect of a supervised session (`pause_on_interrupt`: its folder's setting)."""
    sid = effect.session_id
    if isinstance(effect, Interrupted):
        if pause_on_interrupt:
            log.info("supervisor: %s %s: paused", sid, effect.why)
            # Keep a pause command's pause: it waits for resume, this one a prompt lifts.
            store.pause(sid, "interrupt", now, keep_user_pause=True)
        return
    if isinstance(effect, TurnFailed):
        log.warning(
            "supervisor: %s: the turn failed (%s): paused until you write or resume",
            sid,
            effect.why,
        )
        store.pause(sid, "error", now, keep_user_pause=True)
        return
    pause = store.paused(sid)
    if pause is not None and pause.reason in LIFTED_BY_PROMPT:
        log.info("supervisor: %s: the user wrote; pause lifted", sid)
        store.resume(sid)
    store.start_episode(sid, now)
