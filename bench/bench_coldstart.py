"""Cold start: process spawn → `initialize` response of `python -m todo_ls` over stdio.

Baselines measured alternately in the same run: a bare `python -c pass` and
`python -c "import pygls.lsp.server"` (spawn to exit), so the server's own start-up cost is
visible as a difference. One extra run lists which heavy modules are loaded when the server
writes its `initialize` answer (`sys.modules` at its first write to stdout): pydantic and the
settings, the project file's TOML reader, the store (sqlite3), the checklist engine's parser,
the supervisor, host adapters, httpx and markdown-it-py must not be (they load right after the
answer or when first needed).

Budget (README, "Performance"): initialize response p50 <= 450 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import ms, report, summary
from lsp_client import SERVER, LspClient, capabilities

BUDGET_P50_MS = 450.0
LAZY_MODULES = (
    "pydantic",
    "todo_ls.settings.model",
    "todo_ls.settings.project_file",
    "tomllib",
    "sqlite3",
    "todo_ls.store",
    "todo_ls.checklist.parse",
    "todo_ls.checklist.scan",
    "todo_ls.checklist.edits",
    "todo_ls.checklist.progress",
    "todo_ls.supervisor.runtime",
    "httpx",
    "httpx_sse",
    "markdown_it",
    "mdit_py_plugins",
    "todo_ls.hosts.http",
    "todo_ls.hosts.opencode_v1",
    "todo_ls.hosts.opencode_v2",
    "todo_ls.hosts.discovery",
)


async def initialize_once(root: Path, command: list[str]) -> float:
    """Seconds from spawning the server to its `initialize` answer (then shut it down)."""
    start = time.perf_counter()
    client = await LspClient.spawn(command, cwd=root)
    received = await asyncio.wait_for(
        client.send_request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": capabilities(pull=True),
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            },
        ),
        60,
    )
    elapsed = received.at - start
    await client.close()
    return elapsed


def spawn_once(code: str) -> float:
    """Seconds from spawning `python -c code` to its exit."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


# `python -m todo_ls` with stdout wrapped: at the first write (the `initialize` answer) the
# names in sys.modules go to the file named by the first argument.
PROBE = """
import runpy, sys
names, out = sys.argv.pop(1), sys.stdout


class FirstWrite:
    seen = False

    def write(self, data):
        if not FirstWrite.seen:
            FirstWrite.seen = True
            with open(names, "w") as f:
                f.write("\\n".join(sorted(sys.modules)))
        return out.buffer.write(data)

    def __getattr__(self, name):
        return getattr(out.buffer, name)


class Stdout:
    buffer = FirstWrite()

    def __getattr__(self, name):
        return getattr(out, name)


sys.stdout = Stdout()
sys.argv[0] = "todo_ls"
runpy.run_module("todo_ls", run_name="__main__", alter_sys=True)
"""


async def modules_at_answer(root: Path) -> set[str]:
    """The modules the server had imported when it wrote its `initialize` answer."""
    names = root / "modules-at-answer.txt"
    client = await LspClient.spawn([sys.executable, "-c", PROBE, str(names)], cwd=root)
    await client.request(
        "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    )
    await client.close()
    return set(names.read_text().split())


async def main_async(repeats: int) -> None:
    samples: dict[str, list[float]] = {"initialize": [], "python_pass": [], "import_pygls": []}
    with tempfile.TemporaryDirectory(prefix="todo-ls-bench-") as tmp:
        root = Path(tmp)
        await initialize_once(root, SERVER)  # warm the OS file cache once
        for _ in range(repeats):
            samples["initialize"].append(await initialize_once(root, SERVER))
            samples["python_pass"].append(spawn_once("pass"))
            samples["import_pygls"].append(spawn_once("import pygls.lsp.server"))
        loaded = await modules_at_answer(root)
    eager = [name for name in LAZY_MODULES if name in loaded]
    figures: dict[str, Any] = {name: summary(values) for name, values in samples.items()}
    init = statistics.median(samples["initialize"])
    figures["initialize"]["minus_import_pygls_ms"] = ms(
        init - statistics.median(samples["import_pygls"])
    )
    figures["initialize"]["ratio_to_import_pygls"] = round(
        init / statistics.median(samples["import_pygls"]), 2
    )
    within = figures["initialize"]["p50_ms"] <= BUDGET_P50_MS
    report(
        "coldstart",
        {
            "repeats": repeats,
            **figures,
            "eager_heavy_imports": eager,
            "eager_check": {
                "modules_at_answer": len(loaded),
                "server_loaded": "todo_ls.server.app" in loaded,
                "lazy_modules": list(LAZY_MODULES),
            },
            "budget": {"initialize_p50_ms": BUDGET_P50_MS},
            "within_budget": within and not eager,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="samples per measurement")
    args = parser.parse_args()
    asyncio.run(main_async(args.repeats))


if __name__ == "__main__":
    main()
