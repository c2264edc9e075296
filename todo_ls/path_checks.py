"""Paths and URIs from outside, checked once at the edge (docs/security.md, "Paths from
outside").

Every path or URI a command, an MCP tool call, the hook's input or a stored row hands to
todo-ls passes one of these checks before it reaches the file system: no NUL byte (the OS
refuses it, and Python raises `ValueError` far from the input), a sane length, and for a URI
no NUL once `%00` is decoded. Pure string work: where a checked path may lead (inside the
project or not) is the caller's business, since only the caller knows the project.
"""

from __future__ import annotations

import os
import re
from urllib.parse import unquote

# Linux's PATH_MAX: no file system todo-ls runs on opens a longer path.
MAX_PATH_CHARS = 4096
# A URI spells a path with up to three characters per byte (`%xx`), plus scheme and host.
MAX_URI_CHARS = 3 * MAX_PATH_CHARS + 64
# What starts a URI rather than a path: a scheme of two letters at least (not `C:`).
URI_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")


def path_problem(path: str) -> str | None:
    """Why `path` cannot name a file (None: it can be tried)."""
    if not path:
        return "is empty"
    if "\x00" in path:
        return "holds a NUL byte"
    if len(path) > MAX_PATH_CHARS:
        return f"is {len(path)} characters long; at most {MAX_PATH_CHARS}"
    return None


def uri_problem(uri: str) -> str | None:
    """Why the URI (or path) `uri` cannot name a file: a NUL byte, raw or as `%00`, or a
    length no path has. The scheme is not judged here: a non-file URI is a normal document
    of an editor (`untitled:`), refused where a file is needed."""
    if not uri:
        return "is empty"
    if len(uri) > MAX_URI_CHARS:
        return f"is {len(uri)} characters long; at most {MAX_URI_CHARS}"
    if "\x00" in uri:
        return "holds a NUL byte"
    if "\x00" in unquote(uri):
        return "holds a NUL byte (%00)"
    return None


def target_problem(target: str) -> str | None:
    """Why `target`, a path or a URI (as subscribe takes), cannot name a file."""
    return uri_problem(target) if URI_SCHEME.match(target) else path_problem(target)


def stored_path_problem(path: str) -> str | None:
    """Why a path read back from the store cannot be used (the store keeps absolute paths;
    a row written by an older todo-ls that checked nothing may hold anything)."""
    problem = path_problem(path)
    if problem is None and not os.path.isabs(path):
        return "is not an absolute path"
    return problem
