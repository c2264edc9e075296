"""The Neovim plugin installed the way the README says, in the real Neovim 0.11.

A plugin manager installs a plugin by cloning its repository into a folder of its own; the test
does the same (`git clone` of this repository, so what is tested is the committed plugin) and
takes the install line, the lazy.nvim spec and the init.lua lines from the README itself. Then
Neovim starts with that user config only (no --clean, no runtimepath code of the test's own),
opens PLAN.md and reports what the user sees: diagnostics and the status line. Without the
server, `:checkhealth todo_ls` must say how to install it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_nvim import REPO, _nvim, make_workspace, private_env

pytestmark = pytest.mark.editor

README = (REPO / "README.md").read_text("utf-8")

# Test code, not user config: once PLAN.md is open, wait for what a user would see, write it as
# JSON to $TODO_LS_TEST_RESULT and quit. Sourced with -S after the user's startup.
PROBE = """\
local buf = vim.api.nvim_get_current_buf()
local function seen()
  return {
    diagnostics = vim.tbl_map(function(d)
      return { lnum = d.lnum, message = d.message }
    end, vim.diagnostic.get(buf)),
    statusline = vim.api.nvim_eval_statusline(vim.o.statusline, {}).str,
  }
end
local result = seen()
result.ready = vim.wait(20000, function()
  result = seen()
  return #result.diagnostics > 0 and result.statusline:find('open') ~= nil
end, 50)
result.plugin = vim.api.nvim_get_runtime_file('lua/todo_ls/init.lua', true)
vim.fn.writefile({ vim.json.encode(result) }, vim.env.TODO_LS_TEST_RESULT)
vim.cmd('qall!')
"""
HEALTH_PROBE = """\
vim.cmd('checkhealth todo_ls')
local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
vim.fn.writefile({ vim.json.encode({ health = lines }) }, vim.env.TODO_LS_TEST_RESULT)
vim.cmd('qall!')
"""


def _readme_block(language: str, starts: str) -> str:
    """The README's fenced `language` block whose first line starts with `starts`."""
    for block in re.findall(rf"```{language}\n(.*?)```", README, re.S):
        if block.startswith(starts):
            return str(block)
    raise AssertionError(f"no ```{language} block starting with {starts!r} in README.md")


def _install_packages(data: Path) -> str:
    """README, no plugin manager: `git clone … ~/.local/share/nvim/site/pack/…/start/todo-ls`
    and the init.lua lines after it."""
    clone = _readme_block("sh", "git clone")
    target = re.fullmatch(r"git clone \S+ ~/\.local/share/(\S+)\n", clone)
    assert target, clone
    _clone(data / target.group(1))
    init = _readme_block("lua", "require('todo_ls').setup(")
    assert "rtp" not in init and "runtimepath" not in init, init  # Neovim finds the plugin itself
    return init


def _install_lazy_like(data: Path) -> str:
    """README, lazy.nvim: its spec, installed as lazy.nvim does (clone into
    stdpath('data')/lazy/<name>, the folder on 'runtimepath', plugin/ sourced, then
    `require(main).setup(opts)`), without lazy.nvim itself, which is not installable here."""
    spec = _readme_block("lua", "{ 'OWNER/todo-ls'")
    _clone(data / "nvim" / "lazy" / "todo-ls")
    return f"""\
local spec = {spec}
local dir = vim.fn.stdpath('data') .. '/lazy/' .. spec[1]:match('[^/]+$')
vim.opt.rtp:prepend(dir)
for _, file in ipairs(vim.fn.glob(dir .. '/plugin/*.lua', false, true)) do
  vim.cmd.source(file)
end
require(spec.main).setup(spec.opts)
vim.o.statusline = "%{{v:lua.require'todo_ls'.statusline()}}"
"""


def _clone(target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", str(REPO), str(target)], check=True, timeout=60)


def _start(tmp_path: Path, init: str, probe: str, path: str) -> dict[str, Any]:
    """Neovim with `init` as the user's init.lua, PLAN.md open, `probe` sourced; its result."""
    workspace = make_workspace(tmp_path)
    env = private_env(tmp_path)
    config = Path(env["XDG_CONFIG_HOME"]) / "nvim"
    config.mkdir(parents=True)
    (config / "init.lua").write_text(init, encoding="utf-8")
    (tmp_path / "probe.lua").write_text(probe, encoding="utf-8")
    result = tmp_path / "result.json"
    run = subprocess.run(
        [_nvim(), "--headless", "-S", str(tmp_path / "probe.lua"), "PLAN.md"],
        cwd=workspace,
        env={**env, "PATH": path, "TODO_LS_TEST_RESULT": str(result)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.exists(), f"exit {run.returncode}\n{run.stdout}\n{run.stderr}"
    data: dict[str, Any] = json.loads(result.read_text("utf-8"))
    return data


def _path_with_server(tmp_path: Path) -> str:
    """PATH with `todo-ls` the way pipx or uv leave it: an entry point in a bin folder."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    server = Path(_nvim()).with_name("todo-ls")  # the test venv's entry point
    assert server.exists(), server
    (bin_dir / "todo-ls").symlink_to(server)
    return os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])


@pytest.mark.parametrize("install", [_install_packages, _install_lazy_like], ids=["pack", "lazy"])
def test_plugin_installed_as_the_readme_says_shows_diagnostics_and_status(
    tmp_path: Path, install: Any
) -> None:
    init = install(Path(private_env(tmp_path)["XDG_DATA_HOME"]))
    seen = _start(tmp_path, init, PROBE, _path_with_server(tmp_path))
    assert seen["ready"], seen
    [plugin] = seen["plugin"]
    assert plugin.startswith(str(tmp_path / "xdg" / "data")), plugin  # the clone, not this tree
    assert sorted(d["lnum"] for d in seen["diagnostics"]) == [4, 6], seen
    assert "write the parser" in " ".join(d["message"] for d in seen["diagnostics"])
    assert "2/5 open" in seen["statusline"], seen


def test_checkhealth_without_the_server_says_how_to_install_it(tmp_path: Path) -> None:
    init = _install_packages(Path(private_env(tmp_path)["XDG_DATA_HOME"]))
    empty = tmp_path / "empty-bin"
    empty.mkdir()  # neither todo-ls nor python3 on PATH
    health = "\n".join(_start(tmp_path, init, HEALTH_PROBE, str(empty))["health"])
    assert "ERROR `python3` is not executable" in health, health
    for how in ("pipx install todo-ls", "uv tool install todo-ls", "|todo_ls-install|"):
        assert how in health, health
