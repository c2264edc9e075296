"""The state store's schema: the steps that create and migrate it (docs/store.md).

Kept apart from the code that opens the file so that a schema change is one reviewed place: the
tables are only ever changed by appending a step here, and the database module applies the
steps a file is missing.
"""

from __future__ import annotations

# Each step moves the schema from version i to i + 1; later versions append steps, never edit
# one that has shipped (a user's file may be at any earlier version).
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE subscriptions (
            workspace TEXT NOT NULL,
            path TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('added', 'removed')),
            at REAL NOT NULL,
            PRIMARY KEY (workspace, path))""",
        """CREATE TABLE pauses (
            session_id TEXT PRIMARY KEY,
            reason TEXT NOT NULL,
            since REAL NOT NULL)""",
        """CREATE TABLE episodes (
            session_id TEXT PRIMARY KEY,
            episode INTEGER NOT NULL,
            started_at REAL NOT NULL)""",
        """CREATE TABLE nudges (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            episode INTEGER NOT NULL,
            number INTEGER NOT NULL,
            open_hash TEXT NOT NULL,
            kind TEXT NOT NULL,
            owner TEXT NOT NULL,
            claimed_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('claimed', 'sent', 'failed')),
            settled_at REAL)""",
        "CREATE INDEX nudges_session_state ON nudges (session_id, state, id)",
        """CREATE TABLE session_todos (
            session_id TEXT PRIMARY KEY,
            json TEXT NOT NULL,
            at REAL NOT NULL)""",
    ),
    # Sessions of agents reached through hooks (Claude Code, Codex, Gemini CLI): each hook
    # process records what it saw, and the language servers list them from here. A Stop
    # hook's block is a nudge in the ledger; `stop_blocks` makes it one per opportunity.
    (
        """CREATE TABLE hook_sessions (
            session_id TEXT PRIMARY KEY,
            host TEXT NOT NULL,
            directory TEXT NOT NULL,
            state TEXT NOT NULL,
            paused TEXT NOT NULL DEFAULT '',
            title TEXT NOT NULL DEFAULT '',
            detail TEXT NOT NULL DEFAULT '',
            turn TEXT NOT NULL DEFAULT '',
            updated_at REAL NOT NULL)""",
        "CREATE INDEX hook_sessions_directory ON hook_sessions (directory)",
        """CREATE TABLE stop_blocks (
            session_id TEXT NOT NULL,
            opportunity TEXT NOT NULL,
            work_mark TEXT NOT NULL,
            nudge_id INTEGER NOT NULL,
            PRIMARY KEY (session_id, opportunity))""",
    ),
    (
        # A todo_write is progress: nudges up to `after_nudge` no longer count towards the
        # no-progress pause (an id, not a time: the writer's clock may not be the nudger's).
        """CREATE TABLE todo_progress (
            session_id TEXT PRIMARY KEY,
            after_nudge INTEGER NOT NULL)""",
    ),
    (
        # What a hook host's session did outside its transcript: post-tool events (work), and
        # the reason of its latest Stop block (some hosts hand it back as a prompt).
        """CREATE TABLE hook_work (
            session_id TEXT PRIMARY KEY,
            tool_runs INTEGER NOT NULL DEFAULT 0,
            last_reason TEXT NOT NULL DEFAULT '')""",
    ),
    (
        # The persisted file index: a subscribed file's summary by its size and mtime, so a
        # language server's second start counts unchanged files without reading them
        # (todo_ls/file_index.py). A cache: rows of another `format` or states are ignored.
        """CREATE TABLE file_summaries (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            format INTEGER NOT NULL,
            states TEXT NOT NULL,
            summary TEXT NOT NULL)""",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)
