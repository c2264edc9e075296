# Sourced by the setup scripts of the agents that need Python 3.12 (Mistral Vibe, OpenHands):
# `python312 WHAT` prints the path of a Python 3.12 that runs, pyenv's first (its shim may not
# point at one), else PATH's; it exits naming WHAT when there is none.
python312() {
  if command -v pyenv >/dev/null; then
    local v
    v="$(pyenv versions --bare | grep -E '^3\.12(\.|$)' | tail -n 1)"
    if [ -n "$v" ] && [ -x "$(pyenv root)/versions/$v/bin/python3.12" ]; then
      echo "$(pyenv root)/versions/$v/bin/python3.12"
      return
    fi
  fi
  if python3.12 --version >/dev/null 2>&1; then command -v python3.12; return; fi
  echo "Python 3.12 is required ($1)" >&2
  exit 1
}
