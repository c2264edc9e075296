"""A cloned repository that tries to steer todo-ls, and a loopback listener that records what
reaches it (issue 22, docs/security.md). Shared by the unit and the LSP trust tests.

The repository's `todo-ls.toml` sets every key a project file may not set (`supervisor.url`
at the listener, `supervisor.host`, `supervisor.passwordEnv` naming a variable with a secret,
`stateDir` at a folder of its choosing, in both spellings pydantic accepts) and subscribes files
outside the folder in every way it can: `..`, an absolute path, a glob in the parent, a file
symlinked out and a folder symlinked out. The environment holds secrets in the named variable
and in every host's default password variable.
"""

from __future__ import annotations

import base64
import contextlib
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

INSIDE_ITEM = "inside item of the repository"
OUTSIDE_ITEM = "OUTSIDE item of the parent folder"
LINKED_ITEM = "LINKED item behind a symlinked folder"
PLAN = f"# Plan\n\n- [ ] {INSIDE_ITEM}\n- [x] done item\n"

# The variable the project file names, and the hosts' default password variables.
NAMED_SECRET = ("MY_CLOUD_TOKEN", "named-variable-secret-4f1e")
SECRETS = {
    NAMED_SECRET[0]: NAMED_SECRET[1],
    "OPENCODE_SERVER_PASSWORD": "opencode-server-secret-77ab",
    "OPENCODE_PASSWORD": "opencode-v2-secret-9c2d",
    "KILO_SERVER_PASSWORD": "kilo-server-secret-31d0",
}
# Every key the project file sets that it may not, as the warnings name them.
FORBIDDEN_KEYS = (
    "todoLs.supervisor.url",
    "todoLs.supervisor.host",
    "todoLs.supervisor.passwordEnv",
    "todoLs.supervisor.password_env",
    "todoLs.stateDir",
    "todoLs.state_dir",
)


@dataclass(frozen=True)
class Seen:
    """One request the listener got."""

    method: str
    path: str
    authorization: str | None


@dataclass
class Listener:
    """An HTTP server on 127.0.0.1 that answers 404 and records every request."""

    requests: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                seen.append(Seen(self.command, self.path, self.headers.get("Authorization")))
                body = b'{"error": "not here"}'
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = _record

            def log_message(self, *args: object) -> None:  # quiet test output
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def secrets_seen(self) -> list[str]:
        """The secrets that reached the listener, in any Authorization header."""
        found = []
        for request in self.requests:
            header = request.authorization or ""
            decoded = ""
            if header.lower().startswith("basic "):
                decoded = base64.b64decode(header[6:]).decode("utf-8", "replace")
            found += [s for s in SECRETS.values() if s in header or s in decoded]
        return found

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@dataclass(frozen=True)
class HostileRepo:
    """The folders of one test: `root` (the repository), its parent holding the outside
    files, `attacker_state` (where the project file points `stateDir`) and the `listener`
    where it points `supervisor.url`."""

    root: Path
    attacker_state: Path
    listener: Listener

    @property
    def parent(self) -> Path:
        return self.root.parent

    @property
    def project_file(self) -> Path:
        return self.root / "todo-ls.toml"

    def leaked(self, text: str) -> list[str]:
        """The outside items (or secrets) that `text` shows."""
        return [s for s in (OUTSIDE_ITEM, LINKED_ITEM, *SECRETS.values()) if s in text]


@contextlib.contextmanager
def hostile_repo(base: Path) -> Iterator[HostileRepo]:
    """The repository under `base` (see the module docstring), its listener running."""
    listener = Listener()
    try:
        yield _write_repo(base, listener)
    finally:
        listener.close()


def _write_repo(base: Path, listener: Listener) -> HostileRepo:
    parent = base / "parent"
    root = parent / "repo"
    elsewhere = parent / "elsewhere"
    for folder in (root / "docs", elsewhere):
        folder.mkdir(parents=True)
    (root / "PLAN.md").write_text(PLAN, encoding="utf-8")
    (parent / "notes.md").write_text(f"- [ ] {OUTSIDE_ITEM}\n", encoding="utf-8")
    (elsewhere / "deep.md").write_text(f"- [ ] {LINKED_ITEM}\n", encoding="utf-8")
    (root / "link.md").symlink_to(parent / "notes.md")
    (root / "docs" / "ext").symlink_to(elsewhere, target_is_directory=True)
    attacker_state = base / "attacker-state"
    patterns = [
        "PLAN.md",
        "../notes.md",
        str(parent / "notes.md"),
        "../*.md",
        "link.md",
        "docs/**/*.md",
        "docs/ext/deep.md",
    ]
    quoted = ", ".join(f"'{p}'" for p in patterns)
    (root / "todo-ls.toml").write_text(
        f"markdownFiles = [{quoted}]\n"
        f"stateDir = '{attacker_state}'\n"
        f"state_dir = '{attacker_state}'\n"
        "\n[supervisor]\n"
        f"url = '{listener.url}'\n"
        "host = 'opencode-v1'\n"
        f"passwordEnv = '{NAMED_SECRET[0]}'\n"
        f"password_env = '{NAMED_SECRET[0]}'\n"
        "settleMs = 0\n",
        encoding="utf-8",
    )
    return HostileRepo(root, attacker_state, listener)


def hostile_env(state: Path) -> dict[str, str]:
    """The process environment: the secrets, and todo-ls's and OpenCode's state under `state`
    (the user's own state folder; never a real registration of this machine)."""
    return {
        **os.environ,
        **SECRETS,
        "TODO_LS_STATE_DIR": str(state),
        "XDG_STATE_HOME": str(state / "xdg-state"),
        "HOME": str(state / "home"),
    }
