"""`python -m todo_ls` runs the same command line as the `todo-ls` script."""

from todo_ls.cli import main

raise SystemExit(main())
