"""Reading and writing markdown files on disk: strict reads, byte-exact atomic marker writes."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from todo_ls import disk
from todo_ls.checklist.edits import MarkerEdit
from todo_ls.disk import BOM, DiskError, read_text, write_markers

# reading


def test_reads_utf8_and_keeps_line_endings(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes("- [ ] café\r\n- [x] 日本\rend".encode())
    got = read_text(f)
    assert got.text == "- [ ] café\r\n- [x] 日本\rend"
    assert not got.bom
    assert got.encoding == "utf-8"
    assert got.size == f.stat().st_size
    assert got.mtime_ns == f.stat().st_mtime_ns
    assert got.lines() == ["- [ ] café", "- [x] 日本", "end"]


def test_reads_a_bom_file_without_the_bom_in_the_text(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes(BOM + b"- [ ] a\n")
    got = read_text(f)
    assert got.text == "- [ ] a\n"
    assert got.bom
    assert got.encoding == "utf-8-sig"
    assert got.size == len(BOM) + 8


def test_only_lf_crlf_and_cr_break_lines(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_text("a\u2028b\x0cc\x85d\ne", encoding="utf-8", newline="")
    assert read_text(f).lines() == ["a\u2028b\x0cc\x85d", "e"]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_bytes(b"- [ ] a\n\x00\x01binary"), "binary"),
        (lambda p: p.write_bytes(b"- [ ] caf\xe9\n"), "not UTF-8 (byte 0xe9 at offset 9)"),
        (lambda p: p.write_bytes(BOM + b"\xff"), "not UTF-8 (byte 0xff at offset 3)"),
        (lambda p: p.write_bytes(b"x" * 101), "too large (101 bytes, limit 100)"),
        (lambda p: os.mkfifo(p), "not a regular file"),
    ],
    ids=["missing", "directory", "binary", "latin-1", "bad-after-bom", "too-large", "fifo"],
)
def test_unusable_files_give_one_line_errors_naming_the_path(
    tmp_path: Path, setup: object, message: str
) -> None:
    f = tmp_path / "plan.md"
    setup(f)  # type: ignore[operator]
    with pytest.raises(DiskError) as err:
        read_text(f, max_bytes=100)
    text = str(err.value)
    assert text.startswith(f"{f}: ")
    assert message in text
    assert "\n" not in text


def test_a_file_at_the_size_limit_is_read(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes(b"x" * 100)
    assert read_text(f, max_bytes=100).size == 100


# writing


def write_and_edit(
    tmp_path: Path, data: bytes, edits: list[MarkerEdit]
) -> tuple[Path, disk.WriteResult]:
    f = tmp_path / "plan.md"
    f.write_bytes(data)
    lines = read_text(f).lines()
    return f, write_markers(f, edits, {e.line: lines[e.line] for e in edits})


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"- [ ] a\n- [ ] b\n", b"- [ ] a\n- [x] b\n"),
        (b"- [ ] a\r\n- [ ] b\r\n", b"- [ ] a\r\n- [x] b\r\n"),
        (b"- [ ] a\r- [ ] b\r", b"- [ ] a\r- [x] b\r"),
        (b"- [ ] a\n- [ ] b", b"- [ ] a\n- [x] b"),
        (BOM + b"- [ ] a\r\n- [ ] b", BOM + b"- [ ] a\r\n- [x] b"),
        (b"- [ ] a\r\n- [ ] b\n- [ ] c\r", b"- [ ] a\r\n- [x] b\n- [ ] c\r"),
    ],
    ids=["lf", "crlf", "cr", "no-trailing-newline", "bom-crlf", "mixed"],
)
def test_only_the_marker_changes(tmp_path: Path, before: bytes, after: bytes) -> None:
    f, result = write_and_edit(tmp_path, before, [MarkerEdit(1, 3, " ", "x")])
    assert result == disk.WriteResult(True)
    assert f.read_bytes() == after


def test_non_ascii_before_and_on_the_line_uses_code_point_columns(tmp_path: Path) -> None:
    before = "# Über 🚀\n> 🚀 - [ ] naïve 日本\n".encode()
    f, result = write_and_edit(tmp_path, before, [MarkerEdit(1, 7, " ", "~")])
    assert result.applied
    assert f.read_bytes() == "# Über 🚀\n> 🚀 - [~] naïve 日本\n".encode()


def test_several_edits_and_an_insertion_in_one_write(tmp_path: Path) -> None:
    before = b"- [ ] a\n- b\n  - [/] c\n"
    edits = [MarkerEdit(0, 3, " ", "x"), MarkerEdit(1, 2, "", "[ ] "), MarkerEdit(2, 5, "/", "x")]
    f, result = write_and_edit(tmp_path, before, edits)
    assert result.applied
    assert f.read_bytes() == b"- [x] a\n- [ ] b\n  - [x] c\n"


def test_a_changed_line_is_refused_and_the_file_left_alone(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes(b"- [ ] a\n- [ ] b\n")
    f.write_bytes(b"- [ ] a\n- [ ] b (edited by the agent)\n")  # after the caller read it
    result = write_markers(f, [MarkerEdit(1, 3, " ", "x")], {1: "- [ ] b"})
    assert not result.applied
    assert result.reason is not None
    assert "line 2" in result.reason
    assert f.read_bytes() == b"- [ ] a\n- [ ] b (edited by the agent)\n"


def test_a_line_that_no_longer_exists_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes(b"- [ ] a\n")
    result = write_markers(f, [MarkerEdit(3, 3, " ", "x")], {3: "- [ ] d"})
    assert not result.applied
    assert result.reason is not None
    assert "line 4" in result.reason


def test_a_marker_that_is_not_where_the_edit_says_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes(b"- [x] a\n")
    result = write_markers(f, [MarkerEdit(0, 3, " ", "x")], {})
    assert not result.applied
    assert result.reason is not None
    assert "line 0 col 3" in result.reason
    assert f.read_bytes() == b"- [x] a\n"


def test_an_edit_may_not_insert_a_line_break(tmp_path: Path) -> None:
    f, result = write_and_edit(tmp_path, b"- [ ] a\n", [MarkerEdit(0, 3, " ", "\n")])
    assert not result.applied
    assert f.read_bytes() == b"- [ ] a\n"


def test_a_missing_file_is_refused_not_raised(tmp_path: Path) -> None:
    result = write_markers(tmp_path / "gone.md", [MarkerEdit(0, 3, " ", "x")], {})
    assert not result.applied
    assert result.reason is not None
    assert "no such file" in result.reason


def test_a_file_changed_between_our_read_and_the_rename_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes(b"- [ ] a\n")
    real_mkstemp = tempfile.mkstemp

    def agent_writes_meanwhile(dir: str, prefix: str, suffix: str) -> tuple[int, str]:
        f.write_bytes(b"- [ ] a\n- [ ] new item\n")
        return real_mkstemp(dir=dir, prefix=prefix, suffix=suffix)

    monkeypatch.setattr(tempfile, "mkstemp", agent_writes_meanwhile)
    result = write_markers(f, [MarkerEdit(0, 3, " ", "x")], {0: "- [ ] a"})
    assert not result.applied
    assert result.reason is not None
    assert "changed on disk" in result.reason
    assert f.read_bytes() == b"- [ ] a\n- [ ] new item\n"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.md"]  # no temp file left


def test_the_file_mode_is_kept(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes(b"- [ ] a\n")
    f.chmod(0o640)
    assert write_markers(f, [MarkerEdit(0, 3, " ", "x")], {}).applied
    assert f.stat().st_mode & 0o7777 == 0o640
    f.chmod(0o755)
    assert write_markers(f, [MarkerEdit(0, 3, "x", " ")], {}).applied
    assert f.stat().st_mode & 0o7777 == 0o755


def test_the_write_is_an_atomic_rename(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes(b"- [ ] a\n")
    inode = f.stat().st_ino
    with open(f, "rb") as reader:  # a reader of the old file never sees a half-written one
        assert write_markers(f, [MarkerEdit(0, 3, " ", "x")], {}).applied
        assert f.stat().st_ino != inode
        assert reader.read() == b"- [ ] a\n"


def test_a_symlink_is_kept_and_its_target_rewritten(tmp_path: Path) -> None:
    target = tmp_path / "real.md"
    target.write_bytes(b"- [ ] a\n")
    link = tmp_path / "plan.md"
    link.symlink_to(target)
    assert write_markers(link, [MarkerEdit(0, 3, " ", "x")], {0: "- [ ] a"}).applied
    assert link.is_symlink()
    assert target.read_bytes() == b"- [x] a\n"


def test_no_change_means_no_write(tmp_path: Path) -> None:
    f = tmp_path / "plan.md"
    f.write_bytes(b"- [x] a\n")
    inode = f.stat().st_ino
    assert write_markers(f, [MarkerEdit(0, 3, "x", "x")], {}).applied
    assert f.stat().st_ino == inode


# property: random documents x random marker edits change only the marker bytes

MARKERS = " xX/?~-"
line_text = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\r\n\x00"),
    max_size=12,
)
ending = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def document(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, int, int, str]]]:
    """A document as bytes, and for each task line: (line, col, byte offset, marker)."""
    bom = draw(st.booleans())
    lines = draw(
        st.lists(
            st.tuples(st.booleans(), line_text, st.sampled_from(MARKERS), line_text, ending),
            min_size=1,
            max_size=15,
        )
    )
    last_ending = draw(st.sampled_from(["", "\n", "\r\n", "\r"]))
    data = bytearray(BOM if bom else b"")
    tasks = []
    previous_ending = ""
    for n, (is_task, prefix, marker, rest, end) in enumerate(lines):
        end = last_ending if n == len(lines) - 1 else end
        text = f"{prefix}[{marker}] {rest}" if is_task else prefix + rest
        if previous_ending == "\r" and not text and end == "\n":
            text = "x"  # CR, an empty line and LF would read as one CRLF
        if is_task:
            tasks.append((n, len(prefix) + 1, len(data) + len(prefix.encode()) + 1, marker))
        data += (text + end).encode()
        previous_ending = end
    return bytes(data), tasks


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=document(), data=st.data())
def test_random_documents_only_change_at_the_edited_markers(
    tmp_path_factory: pytest.TempPathFactory,
    doc: tuple[bytes, list[tuple[int, int, int, str]]],
    data: st.DataObject,
) -> None:
    original, tasks = doc
    chosen = data.draw(st.lists(st.sampled_from(tasks), unique=True) if tasks else st.just([]))
    new_markers = [data.draw(st.sampled_from(MARKERS)) for _ in chosen]
    f = tmp_path_factory.mktemp("doc") / "plan.md"
    f.write_bytes(original)
    lines = read_text(f).lines()
    edits = [
        MarkerEdit(line, col, old, new)
        for (line, col, _, old), new in zip(chosen, new_markers, strict=True)
    ]
    result = write_markers(f, edits, {e.line: lines[e.line] for e in edits})
    assert result.applied, result.reason
    written = f.read_bytes()
    expected = bytearray(original)
    for (_, _, offset, _), new in zip(chosen, new_markers, strict=True):
        expected[offset] = ord(new)
    assert written == bytes(expected)
