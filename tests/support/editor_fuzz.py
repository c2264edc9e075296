"""A differential fuzzer of the editor path: random edits over stdio, judged by markdown-it-py.

An `Editor` (lsp_harness) keeps the client's copy of one document and sends what an editor
sends: incremental changes (several per notification, ranges past a line's end, past the last
line), whole-text changes, code actions and `todoLs.toggle` whose `WorkspaceEdit`s it applies
to its copy and reports back as incremental changes. After every step the server's answers
are compared with what markdown-it-py (`reference_parse`) finds in the client's copy:

- diagnostics (pulled, or the push carrying the current version): line, columns, code, message;
- `todoLs.list`: the open items (line, state, text) and the status counts;
- inlay hints: position and label;
- every position the server sent is a character boundary of an existing line, in the
  negotiated encoding;
- a code action or toggle changes exactly the markers its title (or the toggle) promises.

A failing run is replayed on fresh documents of the same server with fewer steps until no step
can go (`shrink`), and reported with its seed and the shrunk steps.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from support.lsp_harness import Editor
from todo_ls.checklist import (
    OPEN_STATES,
    Checklist,
    StateRegistry,
    apply_edits,
    convert_to_task_edit,
    descendants,
    document_progress,
    heading_progress,
    item_progress,
    section_items,
    set_state_edits,
    toggle_state,
)
from todo_ls.checklist.lines import split_lines
from todo_ls.checklist.reference import reference_parse
from todo_ls.checklist.symbols import progress_label
from todo_ls.server.diagnostics import LABELS

REGISTRY = StateRegistry.default()

# Whole lines: every construct the engine handles, and text it must leave alone.
LINES = [
    "- [ ] open item",
    "* [x] done item",
    "+ [X] Done too",
    "1. [/] in progress",
    "2) [?] blocked on you",
    "- [~] canceled",
    "- [-] dropped",
    "- [!] unknown marker",
    "- [ ]",
    "- [ ]\ttab after the box",
    "- plain item",
    "1. plain ordered",
    "  - [ ] nested",
    "    - [x] deeper",
    "\t- [ ] tab-indented",
    "   continuation text",
    "# Heading",
    "## Section é",
    "### Third 😀",
    "Setext heading",
    "===",
    "---",
    "***",
    "```",
    "~~~",
    "```python",
    "    indented code - [ ] not an item",
    "<div>",
    "</div>",
    "<!-- a comment",
    "-->",
    "> - [ ] quoted item",
    "> > - [x] quoted twice",
    ">",
    "...",
    "title: front matter",
    "plain text é ü ß",
    "emoji 😀🎉 and 𝄞",
    "- [ ] ünïcödé 😀 item",
    "x\u2028y line separator",
    "- [ ] a\u2029b paragraph separator",
    "nel\x85inside",
    "form\ffeed",
    "vertical\vtab",
    "[ref]: /url",
    "",
    "",
]
LINE_ENDS = ["\n"] * 8 + ["\r\n", "\r"]
# Short insertions, as typed or pasted.
PIECES = [
    "x",
    "é",
    "😀",
    " ",
    "\t",
    "[ ] ",
    "[x]",
    "- ",
    "# ",
    "`",
    "```",
    "---",
    "> ",
    "<div>",
    "\n",
    "\n",
    "\r\n",
    "\r",
    "\u2028",
    "\u2029",
    "\x85",
    "\f",
    "\v",
    "1. ",
    "  ",
]


def units(text: str, encoding: str) -> int:
    """The length of `text` in client units of `encoding`."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def random_line(rng: random.Random) -> str:
    return rng.choice(LINES) + rng.choice(LINE_ENDS)


def random_text(rng: random.Random, lines: int) -> str:
    text = "".join(random_line(rng) for _ in range(lines))
    if rng.random() < 0.1:
        text = "---\ntitle: t\n---\n" + text  # front matter
    return text.rstrip("\r\n") if rng.random() < 0.2 else text


def random_insert(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.55:
        return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3)))
    if roll < 0.85:
        return random_line(rng)
    return ""  # a deletion


def random_position(rng: random.Random, lines: list[str], encoding: str) -> types.Position:
    """A valid client position, sometimes past its line's end or past the last line."""
    if rng.random() < 0.03:
        return types.Position(line=len(lines) + rng.randint(0, 2), character=rng.randint(0, 3))
    line = rng.randrange(len(lines))
    text = lines[line]
    if rng.random() < 0.15:
        return types.Position(line=line, character=units(text, encoding) + rng.randint(1, 5))
    col = rng.randint(0, len(text))
    return types.Position(line=line, character=units(text[:col], encoding))


def random_range(rng: random.Random, lines: list[str], encoding: str) -> types.Range:
    start = random_position(rng, lines, encoding)
    if rng.random() < 0.6:
        return types.Range(start=start, end=start)  # typing
    if rng.random() < 0.7 and start.line < len(lines):
        # Within the line: from the start to a later column (maybe past the end).
        end_char = start.character + rng.randint(0, 6)
        return types.Range(start=start, end=types.Position(line=start.line, character=end_char))
    end = random_position(rng, lines, encoding)
    first, last = sorted((start, end), key=lambda p: (p.line, p.character))
    return types.Range(start=first, end=last)


# --- steps -------------------------------------------------------------------------------


@dataclass
class Step:
    """One thing the editor did: `change` (incremental changes), `full` (whole text), or
    `action` / `toggle` at `line` (what they edited is then recorded as a `change`)."""

    kind: str
    changes: list[tuple[types.Range, str]] = field(default_factory=list)
    text: str = ""
    line: int = 0
    title: str = ""

    def __repr__(self) -> str:
        if self.kind == "change":
            spans = [
                ((r.start.line, r.start.character), (r.end.line, r.end.character), t)
                for r, t in self.changes
            ]
            return f"change {spans!r}"
        if self.kind == "full":
            return f"full {self.text!r}"
        return f"{self.kind} line {self.line} {self.title!r}".rstrip()


class Disagreement(AssertionError):
    """The server and markdown-it-py disagree about the client's text."""


def expect(condition: bool, what: str, got: Any, want: Any) -> None:
    if not condition:
        raise Disagreement(f"{what}:\n  server:    {got!r}\n  reference: {want!r}")


# --- the judge ---------------------------------------------------------------------------


def check_positions(what: str, lines: list[str], positions: list[types.Position], enc: str) -> None:
    """Every position is on a line of the text, at a character boundary of it."""
    for p in positions:
        ok = p.line < len(lines) and p.character in {
            units(lines[p.line][:k], enc) for k in range(len(lines[p.line]) + 1)
        }
        expect(ok, f"{what}: position {p.line}:{p.character} is not in the text", p, lines)


def expected_diagnostics(ref: Checklist, lines: list[str], enc: str) -> list[Any]:
    return [
        (
            i.line,
            units(lines[i.line][: i.bullet_col], enc),
            i.line,
            units(lines[i.line], enc),
            i.state,
            f"{LABELS.get(i.state, i.state)}: {i.text}",
        )
        for i in ref.items
        if i.state in OPEN_STATES
    ]


def expected_hints(ref: Checklist, lines: list[str], enc: str) -> list[Any]:
    found = [(h.line, heading_progress(ref, h.index)) for h in ref.headings]
    found += [(i.line, item_progress(ref, i.index)) for i in ref.items]
    return sorted(
        (line, units(lines[line], enc), progress_label(p)) for line, p in found if p.total
    )


async def judge(editor: Editor, uri: str) -> None:
    """Compare the server's view of the document with markdown-it-py's of the client's text."""
    text = editor.text(uri)
    enc = editor.encoding
    ref = reference_parse(text)
    lines = split_lines(text)
    diagnostics = await editor.diagnostics(uri)
    check_positions(
        "diagnostic", lines, [p for d in diagnostics for p in (d.range.start, d.range.end)], enc
    )
    got = [
        (start.line, start.character, end.line, end.character, str(d.code), d.message)
        for d in diagnostics
        for start, end in [(d.range.start, d.range.end)]
    ]
    want = expected_diagnostics(ref, lines, enc)
    expect(got == want, "diagnostics", got, want)
    listed = await editor.command("todoLs.list", {})
    got = [(i["line"], i["state"], i["text"]) for i in listed["items"] if i["uri"] == uri]
    want = [(i.line + 1, i.state, i.text) for i in ref.items if i.state in OPEN_STATES]
    expect(got == want, "todoLs.list items", got, want)
    progress = document_progress(ref)
    got_counts = [listed[k] for k in ("open", "done", "canceled", "total")]
    want_counts = [progress.open, progress.done, progress.canceled, progress.total]
    expect(got_counts == want_counts, "status counts", got_counts, want_counts)
    hints = await editor.inlay_hints(uri, 0, len(lines))
    check_positions("inlay hint", lines, [h.position for h in hints], enc)
    got = sorted((h.position.line, h.position.character, str(h.label)) for h in hints)
    want = expected_hints(ref, lines, enc)
    expect(got == want, "inlay hints", got, want)


def promised_text(text: str, ref: Checklist, line: int, title: str) -> str | None:
    """The text after the action `title` at `line` as its title promises (None: an action
    the reference does not offer there)."""
    item = next((i for i in ref.items if i.line == line), None)
    heading = next((h for h in ref.headings if h.line == line), None)
    plain = next((p for p in ref.plain_items if p.line == line), None)
    edits = None
    if item is not None:
        open_children = [c for c in descendants(ref, item.index) if ref.items[c].is_open]
        count = len(open_children)
        by_title = {
            "Mark done": ("done", [item.index]),
            "Cancel": ("canceled", [item.index]),
            "Reopen": ("open", [item.index]),
            f"Mark done with {count} {'child' if count == 1 else 'children'}": (
                "done",
                [item.index, *open_children],
            ),
        }
        if title.startswith("Set state: "):
            by_title[title] = (title.removeprefix("Set state: "), [item.index])
        if title in by_title:
            state, indices = by_title[title]
            edits = set_state_edits(ref, indices, state, REGISTRY)
    elif heading is not None:
        open_items = [i.index for i in section_items(ref, heading.index) if i.is_open]
        if title == f"Mark section done ({len(open_items)} items)":
            edits = set_state_edits(ref, open_items, "done", REGISTRY)
    elif plain is not None and title == "Convert to task":
        edits = [convert_to_task_edit(plain)]
    return None if edits is None else apply_edits(text, edits)


def applied_edits(edit: types.WorkspaceEdit | None, uri: str) -> list[types.TextEdit]:
    return list((edit.changes or {}).get(uri, [])) if edit is not None else []


# --- running steps -----------------------------------------------------------------------


async def run_step(editor: Editor, uri: str, step: Step, rng: random.Random | None) -> Step:
    """Do `step` (an action or toggle picks its target with `rng` when given); returns the
    step as replayed later: what an action or toggle edited becomes a recorded `change`."""
    enc = editor.encoding
    if step.kind == "change":
        editor.change(uri, step.changes)
        return step
    if step.kind == "full":
        editor.set_text(uri, step.text)
        return step
    text = editor.text(uri)
    ref = reference_parse(text)
    lines = split_lines(text)
    if step.kind == "toggle":
        before = len(editor.applied)
        result = await editor.command("todoLs.toggle", {"uri": uri, "line": step.line})
        item = next((i for i in ref.items if i.line == step.line), None)
        edits = [e for p in editor.applied[before:] for e in applied_edits(p.edit, uri)]
        check_positions(
            "toggle edit", lines, [p for e in edits for p in (e.range.start, e.range.end)], enc
        )
        if item is None:
            expect(not result["applied"], f"toggle of line {step.line}", result, "not an item")
            expect(editor.text(uri) == text, "toggle of a non-item", editor.text(uri), text)
        else:
            state = toggle_state(item)
            expect(result == {"applied": True, "state": state}, "toggle", result, state)
            want = apply_edits(text, set_state_edits(ref, [item.index], state, REGISTRY))
            expect(
                editor.text(uri) == want,
                f"text after toggling line {step.line}",
                editor.text(uri),
                want,
            )
        return Step("change", changes=edits_as_changes(edits)) if edits else step
    # An action: ask at the line and apply the one the step names (or a random one).
    found = await editor.code_actions(uri, step.line)
    actions = [a for a in found or [] if isinstance(a, types.CodeAction) and a.edit is not None]
    offered = sorted(a.title for a in actions)
    want_offered = sorted(t for t in action_titles(ref, step.line) if t)
    expect(offered == want_offered, f"code actions at line {step.line}", offered, want_offered)
    if not actions:
        return Step("action", line=step.line)
    chosen = (
        rng.choice(actions)
        if rng is not None
        else next((a for a in actions if a.title == step.title), actions[0])
    )
    step.title = chosen.title  # what a replay asks for
    edits = applied_edits(chosen.edit, uri)
    check_positions(
        "action edit", lines, [p for e in edits for p in (e.range.start, e.range.end)], enc
    )
    assert chosen.edit is not None
    editor.apply(chosen.edit)
    want = promised_text(text, ref, step.line, chosen.title)
    expect(
        editor.text(uri) == want,
        f"text after {chosen.title!r} at line {step.line}",
        editor.text(uri),
        want,
    )
    return Step("change", changes=edits_as_changes(edits))


def edits_as_changes(edits: list[types.TextEdit]) -> list[tuple[types.Range, str]]:
    """The changes an editor reports for `edits`: from the last to the first."""
    ordered = sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    )
    return [(e.range, e.new_text) for e in ordered]


def action_titles(ref: Checklist, line: int) -> list[str]:
    """The titles the reference offers at `line` (those `promised_text` knows)."""
    item = next((i for i in ref.items if i.line == line), None)
    if item is not None:
        titles = []
        if item.state != "done":
            titles.append("Mark done")
        open_children = [c for c in descendants(ref, item.index) if ref.items[c].is_open]
        if open_children:
            n = len(open_children)
            titles.append(f"Mark done with {n} {'child' if n == 1 else 'children'}")
        if item.state != "canceled":
            titles.append("Cancel")
        if not item.is_open:
            titles.append("Reopen")
        offered = {item.state, "done", "canceled"} | (set() if item.is_open else {"open"})
        titles += [f"Set state: {s}" for s in REGISTRY.markers if s not in offered]
        return titles
    heading = next((h for h in ref.headings if h.line == line), None)
    if heading is not None:
        n = sum(1 for i in section_items(ref, heading.index) if i.is_open)
        return [f"Mark section done ({n} items)"] if n else []
    if any(p.line == line for p in ref.plain_items):
        return ["Convert to task"]
    return []


def random_step(rng: random.Random, editor: Editor, uri: str) -> Step:
    text = editor.text(uri)
    lines = split_lines(text)
    roll = rng.random()
    if roll < 0.62:
        count = 1 if rng.random() < 0.8 else rng.randint(2, 4)
        changes = []
        for _ in range(count):
            # Each change applies to the text the previous ones left (as editors send them).
            changes.append((random_range(rng, lines, editor.encoding), random_insert(rng)))
        return Step("change", changes=changes)
    if roll < 0.7:
        if rng.random() < 0.5:
            return Step("full", text=random_text(rng, rng.randint(0, 14)))
        return Step("full", text=text)  # the same text again
    ref = reference_parse(text)
    targets = [i.line for i in ref.items] + [h.line for h in ref.headings]
    targets += [p.line for p in ref.plain_items]
    line = rng.choice(targets) if targets and rng.random() < 0.9 else rng.randrange(len(lines))
    return Step("toggle" if roll < 0.85 else "action", line=line)


@dataclass
class Run:
    """A document's steps from its opening text, in replayable form."""

    text: str
    steps: list[Step] = field(default_factory=list)


class Fuzzer:
    """Drives one server through random documents and edits (see the module docstring)."""

    def __init__(self, editor: Editor, seed: int) -> None:
        self.editor = editor
        self.seed = seed
        self.rng = random.Random(f"{seed}:{editor.caps}")  # each kind of client its own
        self.documents = 0
        self.steps = 0

    def new_document(self, text: str) -> str:
        """Open a fresh subscribed document (its file on disk is empty) with `text`."""
        self.documents += 1
        name = f"fuzz-{self.documents}.md"
        (self.editor.root / name).write_text("", encoding="utf-8")
        return self.editor.open(name, text)

    async def replay(self, run: Run) -> Disagreement | None:
        """Run `run` on a fresh document, judging after each step; the first disagreement."""
        uri = self.new_document(run.text)
        try:
            await judge(self.editor, uri)
            for step in run.steps:
                await run_step(self.editor, uri, step, None)
                await judge(self.editor, uri)
        except Disagreement as found:
            return found
        finally:
            self.close(uri)
        return None

    def close(self, uri: str) -> None:
        self.editor.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri))
        )
        del self.editor.docs[uri]

    async def run(self, steps: int, per_document: int = 40) -> None:
        """`steps` random steps over documents of up to `per_document` steps; raises
        `AssertionError` with the seed and a shrunk repro on the first disagreement."""
        while self.steps < steps:
            run = Run(random_text(self.rng, self.rng.randint(0, 14)))
            uri = self.new_document(run.text)
            try:
                await judge(self.editor, uri)
                for _ in range(min(per_document, steps - self.steps)):
                    step = random_step(self.rng, self.editor, uri)
                    run.steps.append(step)
                    self.steps += 1
                    run.steps[-1] = await run_step(self.editor, uri, step, self.rng)
                    await judge(self.editor, uri)
            except Disagreement as found:
                self.close(uri)
                await self.report(run, found)
            self.close(uri)

    async def report(self, run: Run, found: Disagreement) -> None:
        shrunk, last = await self.shrink(run, found)
        steps = "\n".join(f"    {step!r}" for step in shrunk.steps)
        raise AssertionError(
            f"the editor path disagrees with markdown-it-py (seed {self.seed}, client "
            f"{self.editor.caps}, {self.editor.encoding}, step {self.steps}):\n{last}\n"
            f"shrunk repro: open {shrunk.text!r}, then\n{steps}\n"
            f"rerun: TODO_LS_FUZZ_SEED={self.seed} pytest tests/lsp/test_editor_fuzz.py"
            f" -k {self.editor.caps}"
        )

    async def shrink(
        self, run: Run, found: Disagreement, budget_s: float = 60.0
    ) -> tuple[Run, Disagreement]:
        """A shorter run that still disagrees: steps removed in chunks (halves first), then
        lines of the opening text, while time allows."""
        deadline = time.monotonic() + budget_s
        best, last = run, found

        async def still_fails(candidate: Run) -> bool:
            nonlocal best, last
            if time.monotonic() > deadline:
                return False
            failed = await self.replay(candidate)
            if failed is not None:
                best, last = candidate, failed
            return failed is not None

        chunk = max(1, len(best.steps) // 2)
        while chunk >= 1:
            start = 0
            while start < len(best.steps):
                steps = best.steps[:start] + best.steps[start + chunk :]
                if not await still_fails(Run(best.text, steps)):
                    start += chunk
            chunk //= 2
        lines = best.text.splitlines(keepends=True)  # any split will do: a smaller text
        k = 0
        while k < len(lines):
            fewer = "".join(lines[:k] + lines[k + 1 :])
            if await still_fails(Run(fewer, best.steps)):
                lines = lines[:k] + lines[k + 1 :]
            else:
                k += 1
        return best, last


async def fuzz(editor: Editor, seed: int, steps: int) -> int:
    """Run `steps` random steps with `seed`; returns how many steps agreed (all of them)."""
    fuzzer = Fuzzer(editor, seed)
    await fuzzer.run(steps)
    return fuzzer.steps
