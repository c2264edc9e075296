"""Finding the user's OpenCode processes that listen on loopback (`todo_ls.hosts.local_servers`)
and matching a server's directory to the workspace folders, on a fake /proc tree written here.
The same code against the real /proc and a real OpenCode TUI: tests/hosts/test_opencode_tui.py."""

from __future__ import annotations

import os
from pathlib import Path

from todo_ls.hosts.discovery import folder_match
from todo_ls.hosts.local_servers import (
    Listener,
    listening_ports,
    local_listeners,
    parse_lsof,
    program_of,
    scan_proc,
)

HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"  # noqa: E501


def tcp_line(local: str, state: str, inode: int) -> str:
    counters = "00000000:00000000 00:00000000 00000000  1000  0"
    return f"   0: {local} 00000000:0000 {state} {counters} {inode} 1 0\n"


TCP = HEADER + "".join(
    [
        tcp_line("0100007F:1092", "0A", 555),  # 127.0.0.1:4242, listening
        tcp_line("0100007F:1093", "01", 556),  # established: no server
        tcp_line("0500000A:0050", "0A", 557),  # 10.0.0.5:80: not reachable as 127.0.0.1
        tcp_line("00000000:1F90", "0A", 558),  # 0.0.0.0:8080: every address, loopback too
        "garbage that is no table line\n",
    ]
)
TCP6 = HEADER + "".join(
    [
        tcp_line("00000000000000000000000001000000:1388", "0A", 600),  # [::1]:5000
        tcp_line("0000000000000000FFFF00000100007F:1389", "0A", 601),  # ::ffff:127.0.0.1:5001
        tcp_line("B80D0120000000000000000001000000:138A", "0A", 602),  # 2001:db8::1: not local
    ]
)


def write_process(
    proc: Path, pid: int, argv: list[str], exe: str | None, sockets: list[int]
) -> None:
    folder = proc / str(pid)
    (folder / "fd").mkdir(parents=True)
    (folder / "net").mkdir()
    (folder / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
    if exe is not None:
        os.symlink(exe, folder / "exe")
    os.symlink("/dev/null", folder / "fd" / "0")
    for fd, inode in enumerate(sockets, start=3):
        os.symlink(f"socket:[{inode}]", folder / "fd" / str(fd))
    (folder / "net" / "tcp").write_text(TCP)
    (folder / "net" / "tcp6").write_text(TCP6)


def fake_proc(tmp_path: Path) -> Path:
    proc = tmp_path / "proc"
    binary = "/home/u/.opencode/bin/opencode"
    write_process(proc, 100, [binary, "--port", "4242"], binary, [555, 556, 557])  # a TUI
    write_process(proc, 101, ["python3", "-m", "http.server"], "/usr/bin/python3", [558])
    write_process(proc, 102, ["opencode", "serve"], binary, [600, 601, 602])
    launcher = ["node", "/usr/lib/node_modules/opencode-ai/bin/opencode", "--port", "4242"]
    write_process(proc, 103, launcher, "/usr/bin/node", [])  # the npm launcher holds no socket
    (proc / "self").mkdir()
    (proc / "version").write_text("Linux\n")
    (proc / "104").mkdir()  # a process that ended while we looked: no files left
    return proc


def test_scan_finds_the_opencode_processes_listening_on_loopback(tmp_path: Path) -> None:
    found = scan_proc(fake_proc(tmp_path), uid=os.getuid())
    assert [(x.pid, x.port) for x in found] == [(100, 4242), (102, 5000), (102, 5001)]
    assert found[0].url == "http://127.0.0.1:4242"
    assert not found[0].serves_any_directory  # the TUI works in its own project
    assert found[1].serves_any_directory  # `opencode serve`


def test_scan_sees_only_the_users_own_processes(tmp_path: Path) -> None:
    assert scan_proc(fake_proc(tmp_path), uid=os.getuid() + 1) == []


def test_scan_of_a_missing_proc_finds_nothing(tmp_path: Path) -> None:
    assert scan_proc(tmp_path / "nowhere") == []


def test_listening_ports_reads_both_tables() -> None:
    assert listening_ports(TCP) == {555: 4242, 558: 8080}
    assert listening_ports(TCP6) == {600: 5000, 601: 5001}
    assert listening_ports("") == {}


def test_is_opencode_by_executable_or_program_argument() -> None:
    assert program_of(["/x/bin/opencode", "serve"], None) == "opencode"
    assert program_of(["weird-argv0"], "/x/bin/opencode") == "opencode"
    launcher = ["node", "/usr/lib/node_modules/opencode-ai/bin/opencode"]
    assert program_of(launcher, "/usr/bin/node") == "opencode"
    assert program_of(["node", "server.js"], "/usr/bin/node") is None
    assert program_of(["vim", "opencode"], "/usr/bin/vim") is None  # an argument, not the program
    assert program_of([], None) is None


def test_kilo_is_found_as_kilo() -> None:
    kilo = "/x/node_modules/@kilocode/cli-linux-x64/bin/kilo"
    assert program_of([kilo, "serve", "--port", "4100"], kilo) == "kilo"
    assert program_of(["vim", "kilo"], "/usr/bin/vim") is None


def test_scan_finds_kilo_processes_and_says_which_program_they_are(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    kilo = "/x/node_modules/@kilocode/cli-linux-x64/bin/kilo"
    write_process(proc, 200, [kilo, "serve", "--port", "4242"], kilo, [555])
    write_process(proc, 201, ["opencode", "serve"], "/x/bin/opencode", [600])
    found = scan_proc(proc, uid=os.getuid())
    assert [(x.pid, x.port, x.program) for x in found] == [
        (200, 4242, "kilo"),
        (201, 5000, "opencode"),
    ]
    assert found[0].serves_any_directory  # `kilo serve`


def test_lsof_output_on_macos() -> None:
    output = "\n".join(
        [
            "p812",
            "copencode",
            "f23",
            "n127.0.0.1:4096",
            "f24",
            "n[::1]:4097",
            "p900",
            "copencode",
            "n*:5000",
            "n192.168.1.4:6000",  # a LAN address only: not reachable as 127.0.0.1
            "p901",
            "copencode-helper",  # lsof -c matches by prefix: the name must be exact
            "n127.0.0.1:7000",
            "pnot-a-pid",
            "n127.0.0.1:8000",
            "p950",
            "ckilo",
            "n127.0.0.1:4100",
        ]
    )
    assert parse_lsof(output) == [
        Listener(812, 4096, ("opencode",)),
        Listener(812, 4097, ("opencode",)),
        Listener(950, 4100, ("kilo",), "kilo"),
        Listener(900, 5000, ("opencode",)),
    ]


def test_platforms_without_a_way_to_list_processes() -> None:
    assert local_listeners("win32") is None


def test_folder_match_ranks_the_same_folder_before_a_nested_one(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    other = tmp_path / "other"
    other.mkdir()
    link = tmp_path / "link"
    link.symlink_to(project)
    assert folder_match(str(project), [str(other), str(project)]) == 0
    assert folder_match(str(link), [str(project)]) == 0  # the same folder through a symlink
    assert folder_match(str(project / "sub"), [str(project)]) == 1  # a TUI in a subfolder
    assert folder_match(str(tmp_path), [str(project)]) == 1  # a `serve` above the project
    assert folder_match(str(other), [str(project)]) is None
    assert folder_match(str(project), []) is None
