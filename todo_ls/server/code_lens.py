"""Code lens on the first line of a subscribed file: progress and the supervisor's state for
the file's workspace folder, with `Nudge now` and `Pause` or `Resume` (whichever applies to
that folder's sessions) bound to the commands, scoped to the folder."""

from __future__ import annotations

from lsprotocol import types

from todo_ls.checklist import Progress
from todo_ls.payloads import NUDGE, PAUSE, REFRESH, RESUME
from todo_ls.server.core import TodoLanguageServer
from todo_ls.workspace import uri_to_path

_TOP = types.Range(
    start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
)


def lens_title(progress: Progress, state_word: str | None) -> str:
    """`3/7 open · supervisor: working` (`supervisor: off` without a supervisor)."""
    return f"{progress.open}/{progress.total} open · supervisor: {state_word or 'off'}"


def file_lenses(
    progress: Progress,
    state_word: str | None,
    supervisor_enabled: bool,
    session_states: list[str],
    workspace: str,
) -> list[types.CodeLens]:
    """The lenses of one subscribed file. `Pause` shows while a session of the folder is
    supervised and not paused, `Resume` while one is paused (both only when the folder has
    sessions of each kind)."""
    entries: list[tuple[str, str, dict[str, str]]] = [
        (lens_title(progress, state_word), REFRESH, {})
    ]
    if supervisor_enabled:
        scoped = {"workspace": workspace}
        entries.append(("Nudge now", NUDGE, scoped))
        if any(state != "paused" for state in session_states):
            entries.append(("Pause", PAUSE, scoped))
        if "paused" in session_states:
            entries.append(("Resume", RESUME, scoped))
    return [
        types.CodeLens(
            range=_TOP, command=types.Command(title=title, command=command, arguments=[argument])
        )
        for title, command, argument in entries
    ]


def register(server: TodoLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def on_code_lens(
        ls: TodoLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens]:
        await ls.configuration.ready()  # settings being fetched decide what to show
        path = uri_to_path(params.text_document.uri)
        if path is None or not ls.settings_for(path).code_lens.enabled:
            return []
        folder = ls.workspace_index.subscription_folder(path)
        if folder is None:
            return []
        progress = ls.workspace_index.state(path).progress
        sessions = ls.supervision.status(folder.key)["sessions"]
        return file_lenses(
            progress,
            ls.supervision.state_word(folder.key),
            ls.settings_for(path).supervisor.enabled,
            [session["state"] for session in sessions],
            folder.uri,
        )
