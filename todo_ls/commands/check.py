"""`todo-ls check [PATH...]`: a checklist gate for CI (exit 1 while items are open).

Without paths it checks the `markdownFiles` of the project file (`todo-ls.toml`) in the
current folder, the files an editor or agent hook subscribes there.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from todo_ls.checklist import Checklist, Progress, StateRegistry, document_progress, parse
from todo_ls.disk import DiskError, read_text
from todo_ls.globs import walk_files


class CheckError(Exception):
    """A path that cannot be checked; the message names it and fits on one line."""


@dataclass(frozen=True)
class _Checked:
    path: str  # as the user gave it, or joined onto the directory they gave
    checklist: Checklist


def _markdown_under(directory: str) -> Iterator[str]:
    """`*.md` files below `directory`, sorted, following symlinks but never into a loop."""
    return (path for path in walk_files(directory) if path.endswith(".md"))


def _expand(path: str) -> list[str]:
    if os.path.isdir(path):
        found = list(_markdown_under(path))
        if not found:
            raise CheckError(f"{path}: no markdown (*.md) files in this directory")
        return found
    if not os.path.exists(path):
        raise CheckError(f"{path}: no such file or directory")
    return [path]


def _read(path: str) -> str:
    try:
        return read_text(path).text
    except DiskError as err:
        raise CheckError(str(err)) from None


def _counts(progress: Progress) -> dict[str, int]:
    return {
        "open": progress.open,
        "done": progress.done,
        "canceled": progress.canceled,
        "total": progress.total,
    }


def _summary(label: str, progress: Progress) -> str:
    text = f"{label}: {progress.open} open, {progress.done} done"
    if progress.canceled:
        text += f", {progress.canceled} canceled"
    return text + f" of {progress.total}"


def _escape_data(text: str) -> str:
    """Escape a workflow-command message (GitHub Actions rules)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _text_report(checked: Sequence[_Checked], github: bool) -> list[str]:
    out: list[str] = []
    for doc in checked:
        for item in doc.checklist.items:
            if not item.is_open:
                continue
            # `path:line: [state] text`: the form terminals and CI logs turn into links.
            label = f"[{item.state}] {item.text}"
            if github:
                out.append(
                    f"::warning file={_escape_property(doc.path)},line={item.line + 1},"
                    f"title=todo-ls::{_escape_data(label)}"
                )
            else:
                out.append(f"{doc.path}:{item.line + 1}: {label}")
        out.append(_summary(doc.path, document_progress(doc.checklist)))
    if len(checked) > 1:
        total = Progress.of(i for doc in checked for i in doc.checklist.items)
        out.append(_summary(f"total ({len(checked)} files)", total))
    return out


def _json_report(checked: Sequence[_Checked], errors: Sequence[str]) -> str:
    files = [
        {
            "path": doc.path,
            "items": [
                {
                    "line": i.line + 1,
                    "state": i.state,
                    "marker": i.marker,
                    "open": i.is_open,
                    "text": i.text,
                }
                for i in doc.checklist.items
            ],
            **_counts(document_progress(doc.checklist)),
        }
        for doc in checked
    ]
    totals = _counts(Progress.of(i for doc in checked for i in doc.checklist.items))
    return json.dumps(
        {"files": files, "totals": {**totals, "files": len(checked)}, "errors": list(errors)},
        ensure_ascii=False,
        indent=2,
    )


def _project_paths(folder: Path) -> tuple[list[str], StateRegistry] | str:
    """The existing files the project file in `folder` subscribes (relative to it) and its
    states, or why there are none. Bad values get a warning on stderr and their default."""
    from todo_ls.globs import expand_inside
    from todo_ls.settings import project_file
    from todo_ls.settings.quick import load

    found = project_file.read(folder)
    if found.path is None:
        names = " or ".join(project_file.FILE_NAMES)
        return f"no paths given and no {names} in {folder}"
    if found.error:
        return found.error
    settings, warnings = load(found.settings)
    for line in found.ignored:
        sys.stderr.write(f"todo-ls: {line}\n")
    for warning in warnings:
        sys.stderr.write(f"todo-ls: {found.path.name}: {warning}\n")
    if not settings.markdown_files:
        return f"{found.path} lists no markdownFiles to check"
    # The project file is the repository's: its files stay inside the folder.
    expansion = expand_inside(folder, settings.markdown_files)
    for line in expansion.outside:
        sys.stderr.write(f"todo-ls: {found.path.name}: {line}\n")
    paths = [
        os.path.relpath(p, folder)
        for p in expansion.paths
        if p.is_file()  # a subscribed file that does not exist yet has no items
    ]
    return list(dict.fromkeys(paths)), StateRegistry.from_settings(settings.states)


def run_check(paths: Sequence[str], fmt: str) -> int:
    """Check `paths` (files or directories) and report in `fmt` (`text`, `json`, `github`);
    no paths: the project file's `markdownFiles` in the current folder.

    Returns 1 if any item is open, 0 if none, 2 if any path could not be checked (each such
    path gets one line on stderr) or there is nothing to check.
    """
    registry = StateRegistry.default()
    if not paths:
        project = _project_paths(Path.cwd())
        if isinstance(project, str):
            sys.stderr.write(f"todo-ls check: {project}\n")
            return 2
        paths, registry = project
    checked: list[_Checked] = []
    errors: list[str] = []
    for given in paths:
        try:
            files = _expand(given)
        except CheckError as err:
            errors.append(str(err))
            continue
        for path in files:
            try:
                checked.append(_Checked(path, parse(_read(path), registry)))
            except CheckError as err:
                errors.append(str(err))
    if fmt == "json":
        lines = [_json_report(checked, errors)]
    else:
        lines = _text_report(checked, github=fmt == "github")
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()
    for error in errors:
        sys.stderr.write(f"todo-ls: {error}\n")
    if errors:
        return 2
    return 1 if any(i.is_open for doc in checked for i in doc.checklist.items) else 0
