"""Command line: `todo-ls [serve] | check | supervise | --version`."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from todo_ls import __version__


def _parser() -> argparse.ArgumentParser:
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
    check.add_argument("paths", nargs="+", help="markdown files or directories")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `todo-ls` script and `python -m todo_ls`."""
    args = _parser().parse_args(argv)
    command = args.command or "serve"
    if command == "check":
        from todo_ls.check import run_check

        return run_check(args.paths, args.format)
    logging.basicConfig(
        stream=sys.stderr,
        level=getattr(args, "log_level", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("pygls").setLevel(logging.WARNING)
    if command == "supervise":
        from todo_ls.headless import run_supervise

        return run_supervise(url=args.url, directory=args.directory, settings=args.settings)
    from todo_ls.server.app import serve

    return serve(
        tcp=getattr(args, "tcp", False),
        host=getattr(args, "host", "127.0.0.1"),
        port=getattr(args, "port", 2087),
    )
