"""Command line: `todo-ls [serve] | check | supervise | hook | install | mcp | --version`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from todo_ls import __version__

if TYPE_CHECKING:
    import argparse


def _parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(prog="todo-ls", description=__doc__)
    parser.add_argument("--version", action="version", version=f"todo-ls {__version__}")
    # vscode-languageclient appends --stdio to the server command; stdio is the default anyway.
    parser.add_argument("--stdio", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command")

    serve = sub.add_parser("serve", help="run the language server over stdio (the default)")
    serve.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio")
    serve.add_argument("--stdio", action="store_true", help="talk LSP over stdio (the default)")
    serve.add_argument("--host", default="127.0.0.1", help="TCP address (default: loopback)")
    serve.add_argument("--port", type=int, default=2087, help="TCP port")
    serve.add_argument("--log-level", default="INFO", help="stderr log level")

    check = sub.add_parser("check", help="list open checklist items; exit 1 if any is open")
    check.add_argument(
        "paths",
        nargs="*",
        help="markdown files or directories (default: the markdownFiles of the todo-ls.toml "
        "in the current folder)",
    )
    check.add_argument("--format", choices=["text", "json", "github"], default="text")

    supervise = sub.add_parser("supervise", help="run the agent supervisor without an editor")
    supervise.add_argument("--url", help="OpenCode server URL (default: discover)")
    supervise.add_argument("--directory", help="project folder (default: current directory)")
    supervise.add_argument("--log-level", default="WARNING", help="stderr log level")
    supervise.add_argument(
        "--settings",
        metavar="JSON|FILE",
        help="todoLs settings as a JSON object, as an editor sends them, inline or the path "
        'of a JSON file, e.g. \'{"supervisor": {"settleMs": 2000}}\' (--url wins over '
        "supervisor.url)",
    )
    # Parsed by `todo_ls.hook.run` itself (it must start fast); listed here for `--help`.
    hook = sub.add_parser("hook", help="run as an agent's hook (reads the hook's JSON on stdin)")
    hook.add_argument("--host", choices=hook_hosts(), help="the agent (default: detected)")

    install = sub.add_parser("install", help="write todo-ls into an agent's settings")
    install.add_argument("target", choices=host_names(), help="the agent")
    install.add_argument("--scope", choices=["project", "user"], default="project")
    install.add_argument("--directory", help="project folder (default: current directory)")
    install.add_argument("--dry-run", action="store_true", help="show the change, write nothing")
    install.add_argument("--uninstall", action="store_true", help="remove todo-ls's entries")

    mcp = sub.add_parser("mcp", help="run the agent todo tools as an MCP server on stdio")
    mcp.add_argument("--directory", help="project folder (default: current directory)")
    mcp.add_argument("--log-level", default="WARNING", help="stderr log level")
    return parser


def hook_hosts() -> tuple[str, ...]:
    """The agents `todo-ls hook` serves."""
    from todo_ls.hook.hosts import KINDS

    return KINDS


def host_names() -> list[str]:
    """The agents `todo-ls install` knows."""
    from todo_ls.install import HOSTS

    return sorted(HOSTS)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `todo-ls` script and `python -m todo_ls`."""
    raw = list(sys.argv[1:] if argv is None else argv)
    if raw[:1] == ["hook"] and not {"-h", "--help"} & set(raw):
        from todo_ls.hook.run import main as hook_main

        return hook_main(raw[1:], fast_exit=True)
    args = _parser().parse_args(raw)
    command = args.command or "serve"
    if command == "check":
        from todo_ls.commands.check import run_check

        return run_check(args.paths, args.format)
    if command == "install":
        from todo_ls.install import run_install

        return run_install(
            args.target,
            scope=args.scope,
            directory=args.directory,
            dry_run=args.dry_run,
            uninstall=args.uninstall,
        )
    import logging

    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(args, "log_level", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("pygls").setLevel(logging.WARNING)
    if command == "mcp":
        # Imported here only: the language server never loads the MCP server.
        from todo_ls.mcp.server import run_mcp

        return run_mcp(args.directory)
    if command == "supervise":
        from todo_ls.commands.supervise import run_supervise

        return run_supervise(url=args.url, directory=args.directory, settings=args.settings)
    from todo_ls.server.app import serve

    return serve(
        tcp=getattr(args, "tcp", False),
        host=getattr(args, "host", "127.0.0.1"),
        port=getattr(args, "port", 2087),
    )
