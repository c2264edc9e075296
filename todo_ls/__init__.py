"""todo-ls: a language server for markdown checklists that keeps AI coding agents working."""

__version__ = "0.1.0"
