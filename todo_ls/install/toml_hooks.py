"""Add todo-ls's `[[hooks]]` tables to an agent's TOML config, and take them out again.

Mistral Vibe (`hooks.toml`) and Kimi Code (`config.toml`, which also holds the user's models
and keys) keep their hooks as `[[hooks]]` tables. Python reads TOML but writes none, and a
rewrite would lose the user's comments and layout, so todo-ls never rewrites the file: it
appends its tables as one block between two marker comments, and later takes out exactly
that block.

- Idempotent: the same block already there changes nothing; a block with another todo-ls
  command (todo-ls moved) is replaced where it is.
- The file must read as TOML before and after (`tomllib`): one that does not (or where
  `hooks` is not a list of tables, e.g. an inline array that `[[hooks]]` cannot extend) is
  refused, never written.
- Uninstall: the file comes back byte for byte when it still holds what the install wrote
  (`originals`; deleted when the install created it); otherwise only the block goes, with
  the blank line the install put before it.
- A file that changes between reading and writing is not overwritten.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from todo_ls.install import Options, originals

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

END = "# <<< todo-ls hooks <<<"


class InstallError(Exception):
    """The config cannot be changed safely; the message says why."""


@dataclass(frozen=True)
class TomlHooks:
    """An agent whose hooks are `[[hooks]]` tables in a TOML file."""

    kind: str  # the hook host's kind: also the hook's `--host`
    label: str  # for messages
    path: Path
    tables: Sequence[tuple[str, Mapping[str, str | int]]]  # (event, the table's keys)
    note: str = ""  # printed after an install (what the user should know or do)

    @property
    def begin(self) -> str:
        return (
            f"# >>> todo-ls hooks (written by `todo-ls install {self.kind}`; "
            "`--uninstall` takes them out) >>>"
        )

    def block(self) -> str:
        """todo-ls's tables, between the markers."""
        lines = [self.begin]
        for index, (_, table) in enumerate(self.tables):
            lines += [""] * bool(index)
            lines.append("[[hooks]]")
            lines += [f"{key} = {toml_value(value)}" for key, value in table.items()]
        lines.append(END)
        return "\n".join(lines) + "\n"


def toml_value(value: str | int) -> str:
    """A TOML literal: JSON's string escapes are all valid in a TOML basic string."""
    return str(value) if isinstance(value, int) else json.dumps(value, ensure_ascii=False)


def span(text: str, hooks: TomlHooks) -> tuple[int, int] | None:
    """Where todo-ls's block of this agent is in `text`: its first and past-last offsets."""
    start = text.find(hooks.begin)
    if start < 0 or (start > 0 and text[start - 1] != "\n"):
        return None
    end = text.find(END, start)
    if end < 0:
        return None
    end += len(END)
    return start, end + 1 if text[end : end + 1] == "\n" else end


def installed(text: str, hooks: TomlHooks) -> str:
    """`text` with todo-ls's block: replaced where it is, else appended after a blank line."""
    found = span(text, hooks)
    if found is not None:
        start, end = found
        return text[:start] + hooks.block() + text[end:]
    if not text:
        return hooks.block()
    return text + ("\n" if text.endswith("\n") else "\n\n") + hooks.block()


def removed(text: str, hooks: TomlHooks) -> str:
    """`text` without todo-ls's block and the blank line before it."""
    found = span(text, hooks)
    if found is None:
        return text
    start, end = found
    head = text[:start]
    if head.endswith("\n\n"):
        head = head[:-1]
    return head + text[end:]


def _check(path: Path, text: str, appended: bool = False) -> None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        if appended:
            raise InstallError(
                f"{path} would not be valid TOML with todo-ls's [[hooks]] tables ({exc}); "
                "add them by hand"
            ) from None
        raise InstallError(f"{path} is not valid TOML ({exc}); fix it first") from None
    listed = data.get("hooks", [])
    if not isinstance(listed, list) or not all(isinstance(t, dict) for t in listed):
        raise InstallError(f'{path}: "hooks" is not a list of [[hooks]] tables')


def install(hooks: TomlHooks, options: Options) -> int:
    """`todo-ls install <agent>` / `--uninstall` for a TOML hook host; prints what changed."""
    path, out = hooks.path, options.out
    after: str | None
    try:
        existed = path.exists()
        before = originals.read(path) if existed else ""
        _check(path, before)
        if options.uninstall:
            after = removed(before, hooks)
            original = originals.load(path, options.env)
            if after != before and original is not None and before == original.written:
                after = original.text if original.existed else None
            elif after != before and not existed:
                after = None
        else:
            after = installed(before, hooks)
            _check(path, after, appended=True)
    except (InstallError, OSError, UnicodeDecodeError) as exc:
        print(f"todo-ls install {hooks.kind}: {exc}; nothing written", file=out)
        return 1
    if after == before:
        done = "no todo-ls hooks in" if options.uninstall else "already installed in"
        print(f"{hooks.label}: {done} {path}; nothing to change.", file=out)
        return 0
    verb = "would change" if options.dry_run else "changed"
    print(f"{hooks.label}: {verb} {path}:", file=out)
    what = "removed" if options.uninstall else "added"
    for event, table in hooks.tables:
        print(f"  {what} {event}: {table.get('command', '')}", file=out)
    if after is None:
        print("  (the install created the file: deleted)", file=out)
    if options.dry_run:
        out.writelines(originals.diff(path, before, after))
        return 0
    folder_existed = path.parent.is_dir()
    try:
        originals.write(path, before, after)
    except OSError as exc:
        print(f"todo-ls install {hooks.kind}: {exc}; nothing written", file=out)
        return 1
    if options.uninstall:
        originals.forget(path, options.env)
        return 0
    assert after is not None  # an install always leaves a file
    kept = originals.Original(existed, before, after, folder_existed)
    note = originals.remember(path, options.env, kept, fresh=span(before, hooks) is None)
    if note:
        print(note, file=out)
    if hooks.note:
        print(hooks.note, file=out)
    return 0
