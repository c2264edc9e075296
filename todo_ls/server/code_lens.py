"""Code lens on the first line of a subscribed file: progress and the supervisor's state,
with `Nudge now` / `Pause` / `Resume` bound to the commands."""

from __future__ import annotations

from lsprotocol import types

from todo_ls.checklist import Progress
from todo_ls.server.core import TodoLanguageServer
from todo_ls.workspace import uri_to_path

_TOP = types.Range(
    start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
)


def lens_title(progress: Progress, state_word: str | None) -> str:
    """`3/7 open · supervisor: working` (`supervisor: off` without a supervisor)."""
    return f"{progress.open}/{progress.total} open · supervisor: {state_word or 'off'}"


def file_lenses(
    progress: Progress, state_word: str | None, supervisor_enabled: bool
) -> list[types.CodeLens]:
    """The lenses of one subscribed file."""
    entries = [(lens_title(progress, state_word), "todoLs.refresh")]
    if supervisor_enabled:
        entries += [("Nudge now", "todoLs.nudge"), ("Pause", "todoLs.pause")]
        entries += [("Resume", "todoLs.resume")]
    return [
        types.CodeLens(
            range=_TOP, command=types.Command(title=title, command=command, arguments=[{}])
        )
        for title, command in entries
    ]


def register(server: TodoLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def on_code_lens(
        ls: TodoLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens]:
        await ls.configuration.ready()  # settings being fetched decide what to show
        path = uri_to_path(params.text_document.uri)
        if (
            not ls.settings_for(path).code_lens.enabled
            or path is None
            or not ls.workspace_index.is_subscribed(path)
        ):
            return []
        progress = ls.workspace_index.state(path).progress
        return file_lenses(progress, ls.supervision.state_word(), ls.settings.supervisor.enabled)
