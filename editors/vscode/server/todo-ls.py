"""Starts the todo-ls server the VS Code extension carries, with the Python that runs this file.

The extension's `server/` folder holds todo-ls and its dependencies unpacked: `site/` the
pure-Python libraries every supported Python shares, `py<major>.<minor>/` the compiled ones
(pydantic-core…) for that CPython. Nothing is installed: this file puts the two folders first on
`sys.path` and runs todo-ls's command line. The extension starts it with `python -I`, so neither
the workspace folder nor PYTHONPATH can shadow what it carries. `todo-ls install` writes hooks
that run this same file with the same Python.
"""

import os
import sys


def main() -> int:
    """Runs todo-ls with the carried libraries; exits 2 for a Python they were not built for."""
    here = os.path.dirname(os.path.abspath(__file__))
    version = "%d.%d" % sys.version_info[:2]
    compiled = os.path.join(here, "py" + version)
    if not os.path.isdir(compiled):
        sys.stderr.write("todo-ls: this extension carries no server for Python %s\n" % version)
        return 2
    sys.path[0:0] = [compiled, os.path.join(here, "site")]
    from todo_ls.cli import main as todo_ls

    return todo_ls()


if __name__ == "__main__":
    sys.exit(main())
