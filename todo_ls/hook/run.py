"""The edge of `todo-ls hook`: stdin, the project file, the store, stdout, the log.

Fail open: whatever goes wrong (unreadable input, an unknown event, an unusable store, any
exception) the hook exits 0 with nothing on stdout, so the agent stops as if todo-ls were not
installed, and one line goes to `hook.log` in the state folder. It never blocks by accident and
never prints a traceback where the agent's user would see it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TextIO

from todo_ls.hook import core, hosts, protocol
from todo_ls.hook.hosts.base import HookAnswer, HookHost, HookInput
from todo_ls.hook.transcript import Evidence, Transcript, evidence
from todo_ls.path_checks import path_problem
from todo_ls.settings import project_file
from todo_ls.settings.quick import LightSettings, load
from todo_ls.store import Store, default_state_dir
from todo_ls.supervisor.policy import LIFTED_BY_PROMPT
from todo_ls.todos import host_lists

if TYPE_CHECKING:
    from todo_ls.checklist.model import FileItem

LOG_NAME = "hook.log"
LOG_MAX_BYTES = 1_000_000  # then the log starts over, keeping one older file
MAX_INPUT_BYTES = 16 * 1024 * 1024
# The hook's lock budget: a store held by another process (a backup, an `sqlite3` shell) makes
# the hook fail open this quickly rather than stall the agent (docs/store.md#how-it-is-opened).
LOCK_WAIT_S = 0.25
USAGE = f"usage: todo-ls hook [--host {'|'.join(hosts.KINDS)}] < hook-input.json"


class HookFailure(Exception):
    """The hook cannot act; the message is the log line."""


class _Call(NamedTuple):
    """One hook invocation with what the edge read for it."""

    hook: HookInput
    host: HookHost
    store: Store
    settings: LightSettings
    folder: Path  # the agent's project folder
    env: Mapping[str, str]
    now: float
    log: Callable[[str], None]  # a line for the hook log


def main(
    argv: Sequence[str],
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
    now: float | None = None,
    fast_exit: bool = False,
    stderr: TextIO | None = None,
) -> int:
    """Run one hook invocation. Returns 0 unless the host's block answer is an exit code
    (Kimi Code's 2): any other code means something to the agent, so a failure returns 0 too.

    `fast_exit` (the `todo-ls hook` process) ends the process right after the answer is
    flushed: closing the last connection to the store would checkpoint its write-ahead log,
    which costs as much as the rest of the hook and is done by the next writer anyway."""
    env = os.environ if env is None else env
    state_dir = default_state_dir(env)
    try:
        host = _host_option(argv)
    except ValueError:
        # Exit code 2 would make the agent block with our stderr as the reason: fail open.
        _log(state_dir, f"bad command line {' '.join(argv)!r}: {USAGE}")
        return 0
    event = "?"
    try:
        text = (stdin or sys.stdin).read(MAX_INPUT_BYTES)
        hook = protocol.parse(text, env, host)
        event = f"{hook.host} {hook.host_event}"
        answer, state_dir, store = handle(hook, env, time.time() if now is None else now)
    except Exception as exc:  # fail open, whatever it was
        _log(state_dir, f"{event}: {_describe(exc)}")
        return 0
    code = 0
    if answer:
        _say(stdout or sys.stdout, answer.stdout)
        _say(stderr or sys.stderr, answer.stderr)
        code = answer.code
    if fast_exit:
        os._exit(code)
    store.close()
    return code


def _say(stream: TextIO, text: str) -> None:
    if text:
        stream.write(text + "\n")
        stream.flush()


def _host_option(argv: Sequence[str]) -> HookHost | None:
    """`--host KIND` or `--host=KIND` (None: detect it); ValueError for anything else."""
    args = list(argv)
    if not args:
        return None
    value = args[1] if len(args) == 2 and args[0] == "--host" else None
    if len(args) == 1 and args[0].startswith("--host="):
        value = args[0].removeprefix("--host=")
    if value not in hosts.KINDS:
        raise ValueError(USAGE)
    return hosts.get(value)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, (HookFailure, protocol.HookInputError)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}".splitlines()[0]


def handle(
    hook: HookInput, env: Mapping[str, str], now: float
) -> tuple[HookAnswer | None, Path, Store]:
    """Act on one hook input; returns the answer for stdout (None: let the agent stop), the
    state folder used and the store, still open (the caller closes it)."""
    host = hosts.get(hook.host)
    where = protocol.project_dir(hook, host, env) or "."
    problem = path_problem(where)
    if problem is not None:  # checked at the edge (docs/security.md): never a ValueError later
        raise HookFailure(f"the project folder (cwd) {problem}")
    folder = Path(os.path.normpath(os.path.abspath(where)))
    project = project_file.read(folder)
    settings, warnings = load(project.settings)
    state_dir = default_state_dir(env)  # never the project file's (docs/security.md)

    def log(line: str) -> None:
        _log(state_dir, f"{hook.host} {hook.host_event}: {line}")

    for line in [*([project.error] if project.error else []), *project.ignored, *warnings]:
        log(line)
    store = Store.open(state_dir, quiet=True, lock_wait=LOCK_WAIT_S)  # its warning: our log line
    try:
        if store.warning:  # moved aside or in memory: no history to keep a loop bounded
            raise HookFailure(f"state store unusable: {store.warning}")
        call = _Call(hook, host, store, settings, folder, env, now, log)
        if hook.event == "stop":
            return _stop(call), state_dir, store
        _record(call)
        return None, state_dir, store
    except BaseException:
        store.close()
        raise


def _record(call: _Call) -> None:
    hook, host, store, settings, folder, _, now, _ = call
    sid = hook.session_id
    nudge = hook.event == "prompt" and host.is_nudge_prompt(hook, store.hook_work(sid)[1])
    change = core.transition(hook, settings.pause_on_interrupt, nudge, host.waiting_notifications)
    if change.new_episode:
        pause = store.paused(sid)
        if pause is not None and pause.reason in LIFTED_BY_PROMPT:
            store.resume(sid)
        store.start_episode(sid, now)
    if change.pause:
        store.pause(sid, change.pause, now, keep_user_pause=True)
    if hook.event == "tool-use":
        store.record_tool_run(sid)
        _store_own_list(call, host.tool_list(hook))
    if change.state is not None:
        store.record_hook_session(
            sid,
            hook.host,
            str(folder),
            change.state,
            now,
            detail=change.detail,
            turn=change.turn,
            title=change.title,
        )


def _stop(call: _Call) -> HookAnswer | None:
    from todo_ls.supervisor.policy import open_set, read_history

    hook, host, store, settings, folder, env, now, _ = call
    sid = hook.session_id
    path = hook.transcript_path
    problem = path_problem(path) if path else None
    if problem is not None:
        call.log(f"ignoring transcript_path: it {problem}")
    transcript = None
    if path and problem is None:
        transcript = Transcript.open(Path(path), refused=lambda why: call.log(f"ignoring {why}"))
    seen = evidence(transcript, host) if transcript else Evidence(None, None)
    todos = _store_own_list(call, host.own_list(hook, env, transcript)) or []
    own = [host_lists.Entry(t["content"], t["status"], t.get("priority")) for t in todos]
    items = open_set(own, _file_items(folder, settings, store, call.log))
    open_hash = items.hash  # computed anew at each use: once here
    mark = core.work_mark(seen.tool_end, store.hook_work(sid)[0], todos)
    key = core.opportunity(hook.turn, mark, open_hash, hook, _again(call))
    if store.has_stop_block(sid, key):
        return None  # another process answered this very Stop (a second registration)
    pause = store.paused(sid)
    facts = core.StopFacts(
        items=items,
        pause_reason=pause.reason if pause else None,
        history=read_history(store, sid, open_hash),
        work_mark=mark,
        last_block_mark=store.last_stop_mark(sid),
        latest=seen.latest,
        background_tasks=hook.background_tasks,
        enabled=settings.enabled,
        interrupted=host.interrupted(hook) or seen.latest == "interrupt",
        pause_on_interrupt=settings.pause_on_interrupt,
    )
    verdict = core.decide_stop(facts, settings)
    if verdict.new_pause:
        store.pause(sid, verdict.new_pause, now, keep_user_pause=True)
    answer = None
    if verdict.block:

        def reason(number: int) -> str:
            return core.block_reason(items, number)

        owner = f"hook:{os.getpid()}"
        claim = store.claim_stop_block(sid, key, mark, open_hash, owner, now, reason)
        if claim is None:
            return None  # lost the race to a parallel process of the same Stop
        answer = host.block_answer(reason(claim.number))
    store.record_hook_session(
        sid,
        hook.host,
        str(folder),
        verdict.state,
        now,
        paused=verdict.paused,
        detail=verdict.detail,
        turn=hook.turn,
    )
    return answer


def _again(call: _Call) -> str | None:
    """For a host whose input does not say whether a Stop continues a blocked turn (no
    `stop_hook_active`): todo-ls's own latest block of the session, so that the Stop after a
    block is a new opportunity while every process of one Stop still computes the same key."""
    if call.host.reports_continuation:
        return None
    last = call.store.last_sent(call.hook.session_id)
    return "0" if last is None else f"{last.number}@{last.at!r}"


def _file_items(
    folder: Path, settings: LightSettings, store: Store, log: Callable[[str], None]
) -> list[FileItem]:
    """Every task item of the folder's subscribed files: its `markdownFiles` (inside the
    folder only: they are the project file's) plus what was subscribed by command in an
    editor, minus what was unsubscribed there (as the language server computes it, without
    loading its index)."""
    from todo_ls import checklist
    from todo_ls.checklist.model import StateRegistry
    from todo_ls.disk import DiskError, read_text
    from todo_ls.globs import expand_inside, normalize

    overrides = store.subscription_overrides(str(folder))
    expansion = expand_inside(folder, settings.markdown_files)
    for line in [*overrides.skipped, *expansion.outside]:
        log(line)
    paths = set(expansion.paths)
    paths |= {normalize(p) for p in overrides.added}
    paths -= {normalize(p) for p in overrides.removed}
    registry = StateRegistry.from_settings(settings.states)
    found: list[FileItem] = []
    for path in sorted(paths):
        try:
            text = read_text(path).text
        except (DiskError, OSError):
            continue  # missing (not written yet), unreadable or not text: no items
        relative = Path(os.path.relpath(path, folder)).as_posix()
        found += checklist.file_items(checklist.parse(text, registry), relative)
    return found


def _store_own_list(
    call: _Call, found: list[host_lists.Todo] | None
) -> list[host_lists.Todo] | None:
    """Store the session's own list `found` where its host keeps it, when it changed; without
    one, the list stored earlier (a todo tool call seen by the post-tool hook)."""
    hook, _, store, _, _, env, now, _ = call
    if found is None and hook.event == "tool-use":
        found = call.host.own_list(hook, env, None)  # a task tool: the task files changed
    stored = store.session_todos(hook.session_id)
    if found is None:
        return stored
    if found != stored:
        store.set_session_todos(hook.session_id, found, now)
    return found


def _temp_log_dir() -> Path:
    import tempfile  # only when the log needs a place (start-up time)

    user = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"todo-ls-{user}"


def _log(state_dir: Path, line: str) -> None:
    """Append one line to the hook log; a state folder that cannot be written falls back to
    the temp folder, and if that fails too the line is lost (never stderr)."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    text = f"{stamp} todo-ls hook: {line}\n"
    for directory in (state_dir, _temp_log_dir()):
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            path = directory / LOG_NAME
            try:
                if path.stat().st_size > LOG_MAX_BYTES:
                    os.replace(path, path.with_name(LOG_NAME + ".1"))
            except FileNotFoundError:
                pass
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, text.encode("utf-8", "replace"))
            finally:
                os.close(fd)
            return
        except OSError:
            continue
