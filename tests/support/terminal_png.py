"""Turn a terminal screen into a PNG: `tmux capture-pane -e -p` text (SGR colors) → HTML → a
headless Chromium screenshot.

The README's Neovim screenshot (docs/nvim-status.png) is made this way by
tests/editors/test_editor_agent.py, so the picture comes from the real TUI on every run
(test-artifacts/nvim/nvim-status.png); `TODO_LS_UPDATE_DOCS=1` also refreshes the docs copy.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

SGR = re.compile(r"\x1b\[([0-9;:]*)m")
# Escapes other than SGR (which carries the colors): cursor moves, titles, charset switches.
OTHER_ESCAPE = re.compile(
    r"\x1b(?:\[[0-9;?]*[A-Za-ln-z]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-Za-z])"
)

DEFAULT_FG = "#e0e2ea"  # Neovim 0.10+'s default dark scheme (NvimLightGrey2 on NvimDarkGrey2)
DEFAULT_BG = "#14161b"
# xterm's 16 colors, then the 6x6x6 cube and the grey ramp of the 256-color palette.
BASE16 = [
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
]  # fmt: skip
FLAGS = {1: "bold", 3: "italic", 4: "underline", 7: "reverse"}  # SGR code → attribute
CSS = {
    "bold": "font-weight:bold",
    "italic": "font-style:italic",
    "underline": "text-decoration:underline",
}
CELL_PX = (9, 19)  # one cell at font-size 15px (DejaVu Sans Mono), for the window size


def palette(index: int) -> str:
    """The color of 256-color palette entry `index`."""
    if index < 16:
        return BASE16[index]
    if index < 232:
        steps = (0, 95, 135, 175, 215, 255)
        n = index - 16
        r, g, b = steps[n // 36], steps[n // 6 % 6], steps[n % 6]
        return f"#{r:02x}{g:02x}{b:02x}"
    grey = 8 + 10 * (index - 232)
    return f"#{grey:02x}{grey:02x}{grey:02x}"


@dataclass(frozen=True)
class Style:
    """The SGR attributes of one run of cells."""

    fg: str | None = None
    bg: str | None = None
    flags: frozenset[str] = frozenset()  # names from FLAGS

    def css(self) -> str:
        fg, bg = self.fg or DEFAULT_FG, self.bg or DEFAULT_BG
        if "reverse" in self.flags:
            fg, bg = bg, fg
        rules = [f"color:{fg}", f"background:{bg}"]
        rules += [CSS[flag] for flag in sorted(self.flags) if flag in CSS]
        return ";".join(rules)


def _color(params: list[int], i: int) -> tuple[str | None, int]:
    """The extended color starting at params[i] (`5;n` or `2;r;g;b`), and how many it used."""
    if i < len(params) and params[i] == 5 and i + 1 < len(params):
        return palette(params[i + 1]), 2
    if i < len(params) and params[i] == 2 and i + 3 < len(params):
        r, g, b = params[i + 1 : i + 4]
        return f"#{r:02x}{g:02x}{b:02x}", 4
    return None, len(params) - i


def apply_sgr(style: Style, codes: str) -> Style:
    """`style` after one SGR sequence (`ESC [ codes m`)."""
    params = [int(p) if p else 0 for p in re.split("[;:]", codes)] if codes else [0]
    i = 0
    while i < len(params):
        p = params[i]
        i += 1
        if p == 0:
            style = Style()
        elif p in FLAGS:
            style = replace(style, flags=style.flags | {FLAGS[p]})
        elif p - 20 in FLAGS:  # 22, 23, 24, 27 end 1, 3, 4, 7
            style = replace(style, flags=style.flags - {FLAGS[p - 20]})
        elif 30 <= p <= 37 or 90 <= p <= 97:
            style = replace(style, fg=palette(p - 30 if p < 90 else p - 82))
        elif 40 <= p <= 47 or 100 <= p <= 107:
            style = replace(style, bg=palette(p - 40 if p < 100 else p - 92))
        elif p in (38, 48):
            color, used = _color(params, i)
            i += used
            style = replace(style, fg=color) if p == 38 else replace(style, bg=color)
        elif p == 39:
            style = replace(style, fg=None)
        elif p == 49:
            style = replace(style, bg=None)
    return style


def _cells(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _html_text(text: str) -> str:
    """Escaped text where every non-ASCII character is boxed to its cell width, so a glyph from
    a fallback font (the emoji, box drawing) cannot shift the rest of the line."""
    out = []
    for char in text:
        if char.isascii():
            out.append(html.escape(char))
        else:
            width = _cells(char)
            out.append(f'<span class="c{width}">{html.escape(char)}</span>')
    return "".join(out)


def screen_html(screen: str, columns: int) -> str:
    """An HTML page that shows `screen` (lines with SGR sequences) as the terminal did."""
    rows = []
    for line in screen.rstrip("\n").split("\n"):
        line = OTHER_ESCAPE.sub("", line)
        style, spans, pos, used = Style(), [], 0, 0
        for match in [*SGR.finditer(line), None]:
            end = match.start() if match else len(line)
            chunk = line[pos:end]
            if chunk:
                spans.append(f'<span style="{style.css()}">{_html_text(chunk)}</span>')
                used += sum(_cells(c) for c in chunk)
            if match:
                style, pos = apply_sgr(style, match.group(1)), match.end()
        spans.append(f'<span style="{Style().css()}">{" " * max(0, columns - used)}</span>')
        rows.append(f'<div class="row">{"".join(spans)}</div>')
    return f"""<!doctype html>
<meta charset="utf-8">
<style>
  html, body {{ margin: 0; background: {DEFAULT_BG}; }}
  .screen {{ font: 15px/{CELL_PX[1]}px "DejaVu Sans Mono", "Noto Color Emoji", monospace;
             white-space: pre; padding: 10px; }}
  .row {{ height: {CELL_PX[1]}px; overflow: hidden; }}
  .c1, .c2 {{ display: inline-block; overflow: hidden; text-align: center;
              vertical-align: top; height: {CELL_PX[1]}px; }}
  .c1 {{ width: 1ch; }}
  .c2 {{ width: 2ch; }}
</style>
<div class="screen">{"".join(rows)}</div>
"""


def chromium() -> str:
    """The Chromium binary (scripts/setup-vscode.sh installs it); fails when missing."""
    found = shutil.which("chromium")
    assert found, "chromium not found: scripts/setup-vscode.sh installs it"
    return found


def screenshot(screen: str, columns: int, rows: int, png: Path, workdir: Path) -> Path:
    """Render `screen` (a `tmux capture-pane -e -p` of `columns`x`rows`) into `png`."""
    page = workdir / "screen.html"
    page.write_text(screen_html(screen, columns), encoding="utf-8")
    width, height = columns * CELL_PX[0] + 20, rows * CELL_PX[1] + 20
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={workdir / 'chromium-profile'}",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert png.exists() and png.stat().st_size > 1000, f"chromium wrote no screenshot to {png}"
    return png
