"""`todo-ls install pi`: todo-ls's pi extension (editors/pi/todo-ls.ts, carried in the wheel)
written to `.pi/extensions/todo-ls.ts` of the project, or with `--scope user` to
`~/.pi/agent/extensions/` (`$PI_CODING_AGENT_DIR/extensions/`), with the command of this
todo-ls in it. pi has no settings entry to merge: the file is the whole install.

- pi loads a project's extensions at every start without asking: the install says so.
- Idempotent; an extension of an older todo-ls (or one installed from elsewhere) is replaced;
  a file of that name that is not todo-ls's is refused, never overwritten.
- `--uninstall` deletes the file only when it still holds what an install wrote, and the
  folders the install created once they are empty, so the project comes back as it was; any
  other file there stays.
"""

from __future__ import annotations

import contextlib
import json
import shlex
from pathlib import Path

from todo_ls.hook.hosts.pi import EXTENSION_FILE, HOST
from todo_ls.install import Options, originals, todo_ls_command
from todo_ls.install.agent_hook_files import InstallError, _read, _write

# The line the install rewrites (editors/pi/todo-ls.ts), and how a file says it is todo-ls's.
COMMAND_LINE = "const COMMAND: string[] = "
MARK = " * todo-ls for pi "


def extension_source() -> Path:
    """The extension as shipped: inside the installed package, or `editors/pi` of a source
    checkout."""
    package = Path(__file__).resolve().parent.parent
    for folder in (package / "pi_extension", package.parent / "editors" / "pi"):
        if (folder / EXTENSION_FILE).is_file():
            return folder / EXTENSION_FILE
    raise InstallError(f"the pi extension {EXTENSION_FILE} is missing from this todo-ls")


def render(template: str, command: str) -> str:
    """The extension with `command` (a shell command line) as the todo-ls it runs."""
    argv = [*shlex.split(command), "hook", "--host", HOST.kind]
    lines = template.splitlines(keepends=True)
    for n, line in enumerate(lines):
        if line.startswith(COMMAND_LINE):
            lines[n] = f"{COMMAND_LINE}{json.dumps(argv)};\n"
            return "".join(lines)
    raise InstallError(f"the pi extension {EXTENSION_FILE} has no command line to set")


def is_ours(text: str) -> bool:
    """A file some todo-ls install wrote (any version, any command)."""
    return MARK in text.split("*/", 1)[0] and COMMAND_LINE in text


def target(options: Options) -> Path:
    """Where the extension goes for the scope asked for."""
    if options.scope == "user":
        return HOST.user_settings(options.env)
    return options.directory / HOST.project_settings


def install(options: Options) -> int:
    """Install or uninstall todo-ls's pi extension; prints what it changed."""
    out = options.out
    path = target(options)
    try:
        before = _read(path)
        if options.uninstall:
            after = _uninstalled(path, before, options)
        else:
            after = render(_read_template(), options.command or todo_ls_command())
            if before is not None and before != after and not is_ours(before):
                raise InstallError(
                    f"{path} is not todo-ls's extension; rename it, then run again; nothing written"
                )
    except InstallError as exc:
        print(f"todo-ls install pi: {exc}", file=out)
        return 1
    if after == before:
        done = "todo-ls's extension is not in" if options.uninstall else "already installed in"
        print(f"pi: {done} {path}; nothing to change.", file=out)
        return 0
    if options.dry_run:
        out.writelines(originals.diff(path, before or "", after))
        print("(dry run: nothing written)", file=out)
        return 0
    try:
        created = [] if options.uninstall else originals.missing_folders(path.parent)
        _write(path, before, after)
    except (InstallError, OSError) as exc:
        print(f"todo-ls install pi: {exc}", file=out)
        return 1
    if options.uninstall:
        _forget(path, options)
        print(f"pi: removed todo-ls's extension {path}.", file=out)
        return 0
    assert after is not None
    _remember(path, before, after, created, options)
    verb = "replaced" if before is not None else "wrote"
    print(f"pi: {verb} {path}; pi loads it at its next start (or /reload).", file=out)
    print(HOST.trust_note, file=out)
    return 0


def _read_template() -> str:
    try:
        return extension_source().read_text(encoding="utf-8")
    except OSError as exc:
        raise InstallError(f"cannot read the pi extension: {exc}") from None


def _uninstalled(path: Path, before: str | None, options: Options) -> str | None:
    """None (delete) when the file holds what an install wrote; else it stays as it is."""
    if before is None:
        return None
    record = originals.load(path, options.env)
    written = {record.written} if record is not None else set()
    with contextlib.suppress(InstallError):  # without the template only the record tells
        written.add(render(_read_template(), options.command or todo_ls_command()))
    if before in written:
        return None
    if is_ours(before):
        raise InstallError(
            f"{path} was changed since todo-ls wrote it; delete it yourself if you want it gone"
        )
    return before  # someone else's file of that name: not ours to remove


def _remember(
    path: Path, before: str | None, after: str, created: list[Path], options: Options
) -> None:
    """Keep what was written and which folders the install created, for the uninstall: each
    created folder is recorded like a file whose own folder may have been created too."""
    try:
        for item in (path, *created):
            written = after if item == path else ""
            existed = before is not None and item == path
            kept = originals.Original(existed, "", written, item.parent not in created)
            originals.save(item, options.env, kept)
    except OSError as err:  # the install itself is done; only a tidy uninstall is lost
        print(f"Note: could not keep a record of {path} ({err})", file=options.out)


def _forget(path: Path, options: Options) -> None:
    """Drop the records of the install, and the folders it created once they are empty."""
    item: Path = path
    while True:
        record = originals.load(item, options.env)
        originals.forget(item, options.env)  # removes item's folder if the install made it
        if record is None or record.folder_existed or item.parent.exists():
            return
        item = item.parent
