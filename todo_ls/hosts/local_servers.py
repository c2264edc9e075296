"""OpenCode processes of this user listening on loopback: where a server may be, on any port.

The OpenCode TUI opens no port unless started with `--port N`, and then on a port of the
user's choosing; `opencode serve` may run on any port too. Rather than guess ports, this
module lists the user's own `opencode` processes (and Kilo's `kilo`, the same server under
another name) that hold a listening TCP socket. Discovery
then confirms each one by its API and matches it to the workspace folder (see
`todo_ls.hosts.discovery`); nothing here talks HTTP.

- Linux: `/proc/<pid>/cmdline` and `exe` name the program, `/proc/<pid>/fd` holds its socket
  inodes, `/proc/<pid>/net/tcp` and `tcp6` say which inodes listen and on which port.
  `scan_proc` does the reads; the parsing below it is pure and unit-tested on text.
- macOS: `lsof -a -u <uid> -c opencode -c kilo -iTCP -sTCP:LISTEN -Fpcn`, parsed by
  `parse_lsof`.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

log = logging.getLogger(__name__)

PROGRAM = "opencode"
PROGRAMS = (PROGRAM, "kilo")  # `kilo serve` / `kilo --port N`: OpenCode 1.x's server (Kilo)
_LISTEN = "0A"  # TCP state LISTEN in /proc/net/tcp
_LAUNCHERS = frozenset({"node", "bun", "nodejs"})  # `node …/bin/opencode` from an npm install


@dataclass(frozen=True)
class Listener:
    """One OpenCode (or Kilo) process and a loopback port it listens on."""

    pid: int
    port: int
    argv: tuple[str, ...] = ()
    program: str = PROGRAM  # one of PROGRAMS: which server line it can be

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def serves_any_directory(self) -> bool:
        """`opencode serve` / `web` answer for any directory; a TUI works in its own."""
        return any(arg in ("serve", "web") for arg in self.argv[1:])


# --- pure ----------------------------------------------------------------------------------


def program_of(argv: Sequence[str], exe: str | None) -> str | None:
    """Which of PROGRAMS a process is (its executable or its program argument), else None."""
    names = [PurePath(exe).name] if exe else []
    if argv:
        names.append(PurePath(argv[0]).name)
        if PurePath(argv[0]).name in _LAUNCHERS and len(argv) > 1:
            names.append(PurePath(argv[1]).name)
    return next((name for name in names if name in PROGRAMS), None)


def _reachable(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Reachable as 127.0.0.1: bound to loopback or to every address."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _address(hex_text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An address of /proc/net/tcp{,6}: 32-bit words in host (little-endian) byte order."""
    try:
        words = [int(hex_text[i : i + 8], 16) for i in range(0, len(hex_text), 8)]
        raw = b"".join(word.to_bytes(4, "little") for word in words)
        if len(raw) == 4:
            return ipaddress.IPv4Address(raw)
        if len(raw) == 16:
            return ipaddress.IPv6Address(raw)
    except ValueError:
        pass
    return None


def listening_ports(table: str) -> dict[int, int]:
    """Socket inode → port of the loopback (or any-address) listeners in a /proc/net/tcp or
    tcp6 table. Lines that do not parse are skipped."""
    found: dict[int, int] = {}
    for line in table.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 10 or fields[3] != _LISTEN:
            continue
        host, _, port_hex = fields[1].partition(":")
        address = _address(host)
        try:
            port, inode = int(port_hex, 16), int(fields[9])
        except ValueError:
            continue
        if address is not None and _reachable(address) and inode:
            found[inode] = port
    return found


def socket_inode(link: str) -> int | None:
    """The inode of an fd link `socket:[12345]`, None for any other file."""
    if link.startswith("socket:[") and link.endswith("]"):
        with contextlib.suppress(ValueError):
            return int(link[len("socket:[") : -1])
    return None


def parse_lsof(output: str) -> list[Listener]:
    """Listeners from `lsof -F pcn` output (`p<pid>`, `c<command>`, `n<address:port>` lines).
    Only loopback or any-address listeners of a command named as one of PROGRAMS count."""
    found: list[Listener] = []
    pid: int | None = None
    command = ""
    for line in output.splitlines():
        tag, value = line[:1], line[1:]
        if tag == "p":
            pid = int(value) if value.isdigit() else None
            command = ""
        elif tag == "c":
            command = value
        elif tag == "n" and pid is not None and command in PROGRAMS:
            host, _, port = value.rpartition(":")
            host = host.strip("[]")
            if not port.isdigit():
                continue
            if host != "*":
                try:
                    address = ipaddress.ip_address(host)
                except ValueError:
                    if host != "localhost":
                        continue
                else:
                    if not _reachable(address):
                        continue
            found.append(Listener(pid, int(port), (command,), command))
    return sorted(set(found), key=lambda x: (x.port, x.pid))


# --- the edge: reading /proc or running lsof ----------------------------------------------


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def scan_proc(root: Path = Path("/proc"), uid: int | None = None) -> list[Listener]:
    """OpenCode (and Kilo) listeners among the processes of `uid` (default: this user) under
    `root`.

    A process that ends or hides its files halfway is skipped; nothing here raises OSError.
    """
    uid = os.getuid() if uid is None else uid
    found: set[Listener] = set()
    try:
        entries = list(root.iterdir())
    except OSError:
        return []
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        argv = tuple(a.decode(errors="replace") for a in cmdline.split(b"\0") if a)
        exe: str | None = None
        with contextlib.suppress(OSError):
            exe = os.readlink(entry / "exe")
        program = program_of(argv, exe)
        if program is None:
            continue
        inodes = _socket_inodes(entry / "fd")
        if not inodes:
            continue
        ports: dict[int, int] = {}
        for table in ("tcp", "tcp6"):
            text = _read(entry / "net" / table)
            if text is not None:
                ports.update(listening_ports(text))
        pid = int(entry.name)
        found.update(Listener(pid, ports[i], argv, program) for i in inodes if i in ports)
    return sorted(found, key=lambda x: (x.port, x.pid))


def _socket_inodes(fd_dir: Path) -> set[int]:
    inodes: set[int] = set()
    try:
        fds = list(fd_dir.iterdir())
    except OSError:
        return inodes
    for fd in fds:
        with contextlib.suppress(OSError):
            inode = socket_inode(os.readlink(fd))
            if inode is not None:
                inodes.add(inode)
    return inodes


def scan_lsof(uid: int | None = None, timeout: float = 5.0) -> list[Listener]:
    """OpenCode (and Kilo) listeners of `uid` (default: this user) found by `lsof` (macOS,
    BSDs). Several `-c` select any of the names; `-a` ANDs that with the user and socket."""
    uid = os.getuid() if uid is None else uid
    names = [arg for program in PROGRAMS for arg in ("-c", program)]
    command = ["lsof", "-a", "-u", str(uid), *names, "-iTCP", "-sTCP:LISTEN", "-Fpcn"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        log.info("cannot list listening processes with lsof: %s", type(exc).__name__)
        return []
    return parse_lsof(done.stdout)  # lsof exits 1 when it found nothing: not an error


def local_listeners(platform: str = sys.platform) -> list[Listener] | None:
    """This user's OpenCode (and Kilo) processes listening on loopback, on this platform's
    way; None where there is none (discovery then falls back to OpenCode's default port)."""
    if platform.startswith("linux") and Path("/proc/self").exists():
        return scan_proc()
    if platform == "darwin" or "bsd" in platform:
        return scan_lsof()
    return None
