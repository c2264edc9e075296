"""todo-ls side by side with VS Code's own markdown server, on the same documents, in one run.

The peer is `vscode-markdown-languageserver` 0.5.0 (the server of VS Code's markdown support,
installed by scripts/setup-peer.sh), run over stdio as VS Code runs it: VS Code's
initialization options and `markdown` settings (validation off, its default), and a client
that answers what it asks of VS Code. It reads no markdown itself: it asks the client for
markdown-it tokens (`markdown/parse`, answered by `bench/peer/parse_worker.js`, a node process
with markdown-it 14 set up as VS Code's defaults, keeping the last version's tokens as VS
Code's engine does) and for the workspace's files (`markdown/findMarkdownFilesInWorkspace`,
`markdown/fs/readFile` as a byte array, `markdown/fs/stat`, `markdown/fs/readDirectory`,
`markdown/fs/watcher/*`), answered here from disk.

Both servers run at once; each sample asks one of them and then the other, round after round
(interleaved), so a machine that gets busier moves both alike:

- `textDocument/documentSymbol` and `textDocument/foldingRange` on a 1,000-line plan
  (bench/corpus.py), each on a new version (a one-character edit, then the 0.25 s an editor's
  debounce gives, then the clock);
- warm `workspace/symbol` over a 200-file workspace of corpus plans (every file indexed by a
  first round of each query before the samples): an empty query, a prefix and a fuzzy one
  (letters in order, which both servers match).

Each figure: round-trip p50/p90 per server, the CPU the server spent in the request (every
thread; the peer's includes its parse worker, which is VS Code's extension host's work), the
result counts and todo-ls's p50 over the peer's. Judged: todo-ls's workspace/symbol p50 at most
the peer's for each query (docs/performance.md, "Side by side").
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_editor import plan_of_lines
from bench_views import view_capabilities
from bench_workspace import write_workspace
from benchutil import end_process, ms, percentile, report
from lsp_client import LspClient, Received

CACHE = Path(os.environ.get("TODO_LS_CACHE", Path.home() / ".cache" / "todo-ls"))
PEER = CACHE / "peer"
NODE = CACHE / "node24" / "bin" / "node"
SERVER_PACKAGE = PEER / "node_modules" / "vscode-markdown-languageserver"
SERVER_JS = SERVER_PACKAGE / "dist" / "node" / "workerMain.js"
WORKER_JS = Path(__file__).resolve().parent / "peer" / "parse_worker.js"
SETUP_HINT = "the peer server is not installed: run scripts/setup-peer.sh"

DOCUMENT_SETTINGS = {"markdownFiles": ["*.md"], "supervisor": {"enabled": False}}
WORKSPACE_SETTINGS = {"markdownFiles": ["docs/**/*.md"], "supervisor": {"enabled": False}}
# What VS Code sends: its markdown file extensions, and its default `markdown` settings.
PEER_INIT = {
    "markdownFileExtensions": [
        *("md", "mkd", "mdwn", "mdown", "markdown", "markdn", "mdtxt", "mdtext", "workbook"),
    ]
}
PEER_SETTINGS = {
    "markdown": {
        "preferredMdPathExtensionStyle": "auto",
        "suggest": {"paths": {"enabled": True, "includeWorkspaceHeaderCompletions": "never"}},
        "occurrencesHighlight": {"enabled": False},
        "server": {"log": "off"},
        "validate": {
            "enabled": False,
            "referenceLinks": {"enabled": "warning"},
            "fragmentLinks": {"enabled": "warning"},
            "fileLinks": {"enabled": "warning", "markdownFragmentLinks": "inherit"},
            "ignoredLinks": [],
            "unusedLinkDefinitions": {"enabled": "hint"},
            "duplicateLinkDefinitions": {"enabled": "warning"},
        },
    }
}
QUERIES = {"empty_query": "", "prefix": "par", "fuzzy": "srv"}  # "parse…"; s…r…v: "server"
DEBOUNCE_S = 0.25
SERVERS = ("todo_ls", "peer")


def require_peer() -> None:
    """Stop with the set-up hint when the peer (or its Node) is missing."""
    for needed in (NODE, SERVER_JS, PEER / "node_modules" / "markdown-it"):
        if not needed.exists():
            raise SystemExit(f"{SETUP_HINT} ({needed.name} missing)")


def process_cpu_s(pid: int) -> float:
    """CPU seconds of every thread of `pid` so far (schedstat: nanoseconds, not clock ticks)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, IndexError):
            continue  # a thread that ended meanwhile
    return total / 1e9


class ParseWorker:
    """The node process that answers `markdown/parse` as VS Code's extension host does."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[bytes]] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def spawn(cls) -> ParseWorker:
        process = await asyncio.create_subprocess_exec(
            str(NODE),
            str(WORKER_JS),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "NODE_PATH": str(PEER / "node_modules")},
            limit=1 << 28,
        )
        return cls(process)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")

    def set_text(self, uri: str, version: int, text: str) -> None:
        """The open document `uri` now holds `text` (VS Code's extension host has it)."""
        self._send({"op": "set", "uri": uri, "version": version, "text": text})

    async def parse(self, params: dict[str, Any]) -> bytes:
        """The tokens of `params` (`uri`, optional `text`) as JSON bytes."""
        request_id = next(self._ids)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._send({"op": "parse", "id": request_id, **params})
        return await future

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            head, _, tokens = line.rstrip(b"\n").partition(b"\t")
            future = self._pending.pop(int(head), None)
            if future is not None and not future.done():
                future.set_result(tokens)

    async def close(self) -> None:
        await end_process(self.process)
        self._reader.cancel()


@dataclass
class PeerClient(LspClient):
    """A client that answers the peer's `markdown/parse` through the worker, writing the
    worker's JSON into the response as it is (VS Code's host serialises its tokens once too)."""

    worker: ParseWorker | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def _dispatch(self, received: Received) -> None:
        message = received.message
        if message.get("method") == "markdown/parse" and "id" in message:
            task = asyncio.get_running_loop().create_task(
                self._parse(message["id"], message["params"])
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        super()._dispatch(received)

    async def _parse(self, request_id: Any, params: dict[str, Any]) -> None:
        assert self.worker is not None and self.process.stdin is not None
        tokens = await self.worker.parse(params)
        body = b'{"jsonrpc": "2.0", "id": %s, "result": %s}' % (
            json.dumps(request_id).encode(),
            tokens,
        )
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))


def path_of(uri: str) -> Path:
    return Path(uri.removeprefix("file://"))


def stat_of(params: dict[str, Any]) -> dict[str, bool] | None:
    path = path_of(params["uri"])
    return {"isDirectory": path.is_dir()} if path.exists() else None


def workspace_handlers(root: Path) -> dict[str, Callable[[Any], Any]]:
    """The peer's file-system requests, answered as VS Code's client answers them."""

    def find_markdown(_: Any) -> list[str]:
        # VS Code's findFiles skips dot folders (the peer's excludePaths): todo-ls's state too.
        found = (p for p in root.rglob("*.md") if ".state" not in p.parts)
        return [p.as_uri() for p in sorted(found)]

    return {
        "markdown/findMarkdownFilesInWorkspace": find_markdown,
        "markdown/fs/readFile": lambda p: list(path_of(p["uri"]).read_bytes()),
        "markdown/fs/stat": stat_of,
        "markdown/fs/readDirectory": lambda p: [
            [child.name, {"isDirectory": child.is_dir()}]
            for child in sorted(path_of(p["uri"]).iterdir())
        ],
        "markdown/fs/watcher/create": lambda _: None,
        "markdown/fs/watcher/delete": lambda _: None,
    }


@dataclass
class Server:
    """One of the two servers, its document and what it costs."""

    name: str
    client: LspClient
    cpu_pids: list[int]
    worker: ParseWorker | None = None

    def cpu_s(self) -> float:
        return sum(process_cpu_s(pid) for pid in self.cpu_pids)

    async def close(self) -> None:
        await self.client.close()
        if self.worker is not None:
            await self.worker.close()


async def start_todo_ls(root: Path, settings: dict[str, Any]) -> Server:
    client = await LspClient.spawn(cwd=root, settings={"todoLs": settings})
    await client.initialize(root, view_capabilities(), {"todoLs": settings})
    return Server("todo_ls", client, [client.process.pid])


async def start_peer(root: Path) -> Server:
    worker = await ParseWorker.spawn()
    client = await PeerClient.spawn(
        [str(NODE), str(SERVER_JS), "--stdio"],
        cwd=root,
        handlers=workspace_handlers(root),
        worker=worker,
    )
    await client.initialize(root, view_capabilities(), PEER_INIT)
    client.notify("workspace/didChangeConfiguration", {"settings": PEER_SETTINGS})
    return Server("peer", client, [client.process.pid, worker.process.pid], worker)


class EditedDocument:
    """The same open document on one server; each edit toggles one character at the end of a
    middle item line (sent as an incremental change, as editors send it)."""

    def __init__(self, server: Server, path: Path) -> None:
        self.server = server
        self.uri = path.as_uri()
        self.lines = path.read_text().split("\n")
        self.version = 1
        middle = len(self.lines) // 2
        self.line = next(
            i for i in range(middle, len(self.lines)) if self.lines[i].lstrip().startswith("- [")
        )
        item = {"uri": self.uri, "languageId": "markdown", "version": 1, "text": self.text()}
        server.client.notify("textDocument/didOpen", {"textDocument": item})
        if server.worker is not None:
            server.worker.set_text(self.uri, 1, self.text())

    def text(self) -> str:
        return "\n".join(self.lines)

    def edit(self) -> None:
        line = self.lines[self.line]
        end = len(line)
        if line.endswith("z"):
            start, inserted, self.lines[self.line] = end - 1, "", line[:-1]
        else:
            start, inserted, self.lines[self.line] = end, "z", line + "z"
        rng = {
            "start": {"line": self.line, "character": start},
            "end": {"line": self.line, "character": end},
        }
        self.version += 1
        self.server.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": [{"range": rng, "text": inserted}],
            },
        )
        if self.server.worker is not None:
            self.server.worker.set_text(self.uri, self.version, self.text())


async def timed(server: Server, method: str, params: Any) -> tuple[float, float, Any]:
    """One request: round-trip seconds, the server's CPU seconds in it, and its result."""
    cpu = server.cpu_s()
    began = time.perf_counter()
    received = await asyncio.wait_for(server.client.send_request(method, params), 60)
    return received.at - began, server.cpu_s() - cpu, received.message.get("result")


Samples = dict[str, dict[str, list[tuple[float, float]]]]  # figure -> server -> samples


async def interleaved(
    servers: list[Server], figures: list[str], rounds: int, ask: Callable[..., Awaitable[Any]]
) -> tuple[Samples, dict[str, dict[str, int]]]:
    """`rounds` rounds (after one of warm-up): each figure asked of each server in turn."""
    samples: Samples = {f: {s.name: [] for s in servers} for f in figures}
    counts: dict[str, dict[str, int]] = {f: {} for f in figures}
    for n in range(rounds + 1):
        for figure in figures:
            for server in servers:
                latency, cpu, result = await ask(server, figure)
                counts[figure][server.name] = len(result or [])
                if n:
                    samples[figure][server.name].append((latency, cpu))
    return samples, counts


def figure(samples: dict[str, list[tuple[float, float]]], counts: dict[str, int]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, taken in samples.items():
        latencies = [latency for latency, _ in taken]
        found[name] = {
            "n": len(taken),
            "p50_ms": ms(statistics.median(latencies)),
            "p90_ms": ms(percentile(latencies, 90)),
            "cpu_p50_ms": ms(statistics.median(cpu for _, cpu in taken)),
            "results": counts[name],
        }
    peer = found["peer"]["p50_ms"]
    found["ratio_p50"] = round(found["todo_ls"]["p50_ms"] / peer, 3) if peer else None
    return found


async def document_figures(root: Path, rounds: int) -> dict[str, Any]:
    servers = [await start_todo_ls(root, DOCUMENT_SETTINGS), await start_peer(root)]
    try:
        documents = {s.name: EditedDocument(s, root / "plan.md") for s in servers}
        methods = {
            "document_symbol_1000_lines": "textDocument/documentSymbol",
            "folding_range_1000_lines": "textDocument/foldingRange",
        }

        async def ask(server: Server, name: str) -> tuple[float, float, Any]:
            doc = documents[server.name]
            doc.edit()
            await asyncio.sleep(DEBOUNCE_S)
            return await timed(server, methods[name], {"textDocument": {"uri": doc.uri}})

        samples, counts = await interleaved(servers, list(methods), rounds, ask)
    finally:
        for server in servers:
            await server.close()
    return {name: figure(samples[name], counts[name]) for name in samples}


async def workspace_figures(root: Path, rounds: int) -> dict[str, Any]:
    servers = [await start_todo_ls(root, WORKSPACE_SETTINGS), await start_peer(root)]
    try:
        names = {f"workspace_symbol_{name}": query for name, query in QUERIES.items()}

        async def ask(server: Server, name: str) -> tuple[float, float, Any]:
            return await timed(server, "workspace/symbol", {"query": names[name]})

        samples, counts = await interleaved(servers, list(names), rounds, ask)
    finally:
        for server in servers:
            await server.close()
    found = {name: figure(samples[name], counts[name]) for name in samples}
    for name in found:
        found[name]["query"] = names[name]
        found[name]["within_budget"] = (
            found[name]["todo_ls"]["p50_ms"] <= (found[name]["peer"]["p50_ms"])
        )
    return found


def node_version() -> str:
    return subprocess.run(
        [str(NODE), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()


async def main_async(plan_lines: int, files: int, per_file: int, rounds: int) -> None:
    require_peer()
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-peer-") as tmp:
        documents = Path(tmp) / "documents"
        documents.mkdir()
        (documents / "plan.md").write_text(plan_of_lines(plan_lines))
        workspace = Path(tmp) / "workspace"
        items = write_workspace(workspace, files, per_file)
        document = await document_figures(documents, rounds)
        workspace_found = await workspace_figures(workspace, rounds)
    report(
        "peer",
        {
            "peer": {
                "server": "vscode-markdown-languageserver "
                + json.loads((SERVER_PACKAGE / "package.json").read_text())["version"],
                "markdown_it": json.loads(
                    (PEER / "node_modules" / "markdown-it" / "package.json").read_text()
                )["version"],
                "node": node_version(),
            },
            "plan_lines": plan_lines,
            "workspace_size": {"files": files, "items": items},
            "rounds": rounds,
            "document": document,
            "workspace": workspace_found,
            "within_budget": all(f["within_budget"] for f in workspace_found.values()),
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan-lines", type=int, default=1_000, help="lines of the plan")
    parser.add_argument("--files", type=int, default=200, help="files of the workspace")
    parser.add_argument("--items-per-file", type=int, default=100, help="task items per file")
    parser.add_argument("--rounds", type=int, default=30, help="samples per server and figure")
    args = parser.parse_args()
    asyncio.run(main_async(args.plan_lines, args.files, args.items_per_file, args.rounds))


if __name__ == "__main__":
    main()
