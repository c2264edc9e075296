"""The fast engine against the markdown-it-py reference: same items, markers, parents, headings.

Every test runs against both builds of the scanner (`scanner`): scan.py loaded from its source
and the compiled module built from it (scripts/setup-compiled.sh); a missing or stale compiled
module fails the tests. The whole `Checklist` is compared (items with every field, headings,
plain list items), on CommonMark spec examples (each also rewritten into a task list so items
actually occur), on one regression document per kind of disagreement found so far, and on a
generated corpus of lines built from nested quotes, indentation with tabs, list markers and
block starts (fences, every kind of HTML block, link reference definitions, setext underlines,
lazy lines).

`python tests/unit/test_checklist_differential.py 20000` runs a larger random sweep of the same
corpus with the scanner the package uses and prints how many documents disagree (not part of
the test suite)."""

from __future__ import annotations

import json
import random
import re
import sys
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from todo_ls.checklist import Heading, StateRegistry, parse
from todo_ls.checklist.lines import split_lines
from todo_ls.checklist.reference import reference_parse
from todo_ls.checklist.scan_loader import SCANNER, NoCompiledScanner, load_compiled, load_pure


def scanner_module(build: str) -> ModuleType:
    """The scanner `build` ("pure" or "compiled"); fails the test when the compiled one is
    missing or built from another scan.py."""
    if build == "pure":
        return load_pure()
    try:
        return load_compiled()
    except NoCompiledScanner as error:
        pytest.fail(f"{error}: run scripts/setup-compiled.sh", pytrace=False)


@pytest.fixture(scope="module", params=["pure", "compiled"])
def scanner(request: pytest.FixtureRequest) -> ModuleType:
    """Each build of the scanner in turn (module scope: hypothesis reruns a test body many
    times with one fixture value)."""
    return scanner_module(request.param)


# CommonMark 0.31.2 spec examples (tabs, block quotes, list items, lists, code, HTML blocks,
# headings, thematic breaks), written out because no Python package ships the spec's data.
SPEC_EXAMPLES = [
    "\tfoo\tbaz\t\tbim\n",
    "  - foo\n\n\tbar\n",
    "- foo\n\n\t\tbar\n",
    ">\t\tfoo\n",
    "-\t\tfoo\n",
    "    foo\n\tbar\n",
    " - foo\n   - bar\n\t - baz\n",
    "#\tFoo\n",
    "*\t*\t*\t\n",
    "- `one\n- two`\n",
    "***\n---\n___\n",
    "- foo\n***\n- bar\n",
    "Foo\n***\nbar\n",
    "Foo\n---\nbar\n",
    "* Foo\n* * *\n* Bar\n",
    "- Foo\n- * * *\n",
    "# foo\n## foo\n### foo\n#### foo\n##### foo\n###### foo\n####### foo\n",
    "# foo ##########\n## foo #\n### foo ### b\n# foo#\n",
    "Foo bar\n# baz\nBar foo\n",
    "Foo *bar\nbaz*\n====\n",
    "    Foo\n    ---\n\n    Foo\n---\n",
    "> foo\n-----\n",
    "- foo\n-----\n",
    "Foo\nBar\n---\n",
    "    a simple\n      indented code block\n",
    "  - foo\n\n    bar\n",
    "1.  foo\n\n    - bar\n",
    "Foo\n    bar\n",
    "```\n<\n >\n```\n",
    "````\naaa\n```\n``````\n",
    "```\naaa\n    ```\n",
    "> ```\n> aaa\n\nbbb\n",
    "```\n\n  \n```\n",
    "``` ```\naaa\n",
    "~~~ aa ``` ~~~\nfoo\n~~~\n",
    "<table><tr><td>\n<pre>\n**Hello**,\n\n_world_.\n</pre>\n</td></tr></table>\n",
    " <div>\n  *hello*\n         <foo><a>\n",
    '<div id="foo"\n  class="bar">\n</div>\n',
    '<a href="foo">\n*bar*\n</a>\n',
    "<del>*foo*</del>\n",
    '<pre language="haskell"><code>\nimport Text.HTML.TagSoup\n</code></pre>\nokay\n',
    '<style\n  type="text/css">\n\nfoo\n',
    "- <div>\n- foo\n",
    "<!-- Foo\n\nbar\n   baz -->\nokay\n",
    "Foo\n<div>\nbar\n</div>\n",
    'Foo\n<a href="bar">\nbaz\n',
    "> # Foo\n> bar\n> baz\n",
    "># Foo\n>bar\n> baz\n",
    "   > # Foo\n   > bar\n > baz\n",
    "> # Foo\n> bar\nbaz\n",
    "> bar\nbaz\n> foo\n",
    "> foo\n---\n",
    "> - foo\n- bar\n",
    ">     foo\n    bar\n",
    "> ```\nfoo\n```\n",
    "> foo\n    - bar\n",
    ">\n",
    "> foo\n\n> bar\n",
    "> foo\n> bar\n",
    "> foo\n>\n> bar\n",
    "> bar\n>\nbaz\n",
    "> > > foo\nbar\n",
    ">>> foo\n> bar\n>>baz\n",
    ">     code\n\n>    not code\n",
    "A paragraph\nwith two lines.\n\n    indented code\n\n> A block quote.\n",
    "1.  A paragraph\n    with two lines.\n\n        indented code\n\n    > A block quote.\n",
    "- one\n\n two\n",
    "- one\n\n  two\n",
    " -    one\n\n     two\n",
    " -    one\n\n      two\n",
    "   > > 1.  one\n>>\n>>     two\n",
    ">>- one\n>>\n  >  > two\n",
    "-one\n\n2.two\n",
    "- foo\n\n\n  bar\n",
    "1.  foo\n\n    ```\n    bar\n    ```\n\n    baz\n\n    > bam\n",
    "- Foo\n\n      bar\n\n\n      baz\n",
    "123456789. ok\n",
    "1234567890. not ok\n",
    "0. ok\n",
    "003. ok\n",
    "-1. not ok\n",
    "- foo\n\n      bar\n",
    "  10.  foo\n\n           bar\n",
    "    indented code\n\nparagraph\n\n    more code\n",
    "1.     indented code\n\n   paragraph\n\n       more code\n",
    "   foo\n\nbar\n",
    "-    foo\n\n  bar\n",
    "-  foo\n\n   bar\n",
    "-\n  foo\n-\n  ```\n  bar\n  ```\n-\n      baz\n",
    "-   \n  foo\n",
    "-\n\n  foo\n",
    "- foo\n-\n- bar\n",
    "- foo\n-   \n- bar\n",
    "1. foo\n2.\n3. bar\n",
    "*\n",
    "foo\n*\n\nfoo\n1.\n",
    " 1.  A paragraph\n     with two lines.\n",
    "    1.  A paragraph\n        with two lines.\n",
    "  1.  A paragraph\nwith two lines.\n",
    "> 1. > Blockquote\ncontinued here.\n",
    "- foo\n  - bar\n    - baz\n      - boo\n",
    "- foo\n - bar\n  - baz\n   - boo\n",
    "10) foo\n    - bar\n",
    "10) foo\n   - bar\n",
    "- - foo\n",
    "1. - 2. foo\n",
    "- # Foo\n- Bar\n  ---\n  baz\n",
    "- foo\n- bar\n+ baz\n",
    "1. foo\n2. bar\n3) baz\n",
    "Foo\n- bar\n- baz\n",
    "The number of windows in my house is\n14.  The number of doors is 6.\n",
    "The number of windows in my house is\n1.  The number of doors is 6.\n",
    "- foo\n\n- bar\n\n\n- baz\n",
    "- foo\n  - bar\n    - baz\n\n\n      bim\n",
    "- foo\n- bar\n\n<!-- -->\n\n- baz\n- bim\n",
    "- a\n - b\n  - c\n   - d\n  - e\n   - f\n- g\n",
    "1. a\n\n  2. b\n\n   3. c\n",
    "- a\n - b\n  - c\n   - d\n    - e\n",
    "1. a\n\n  2. b\n\n    3. c\n",
    "- a\n- b\n\n- c\n",
    "* a\n*\n\n* c\n",
    "- a\n- b\n\n  c\n- d\n",
    "- a\n- b\n\n  [ref]: /url\n- d\n",
    "- a\n- ```\n  b\n\n\n  ```\n- c\n",
    "- a\n  - b\n\n    c\n- d\n",
    "* a\n  > b\n  >\n* c\n",
    "- a\n  > b\n  ```\n  c\n  ```\n- d\n",
    "- a\n  - b\n",
    "1. ```\n   foo\n   ```\n\n   bar\n",
    "* foo\n  * bar\n\n  baz\n",
    "- a\n  - b\n  - c\n\n- d\n  - e\n  - f\n",
]

_BULLET_RE = re.compile(r"(^|[ \t>])([-*+]|\d{1,9}[.)])([ \t])", re.MULTILINE)


def as_task_list(markdown: str) -> str:
    """Put `[ ] ` (and other markers, round robin) after every list marker of the example."""
    markers = iter(" x?~/!" * 1000)
    return _BULLET_RE.sub(lambda m: f"{m[1]}{m[2]}{m[3]}[{next(markers)}] ", markdown)


def assert_agree(scanner: ModuleType, text: str, registry: StateRegistry | None = None) -> None:
    assert scanner.scan(text, registry) == reference_parse(text, registry), text


@pytest.mark.parametrize("example", SPEC_EXAMPLES)
def test_spec_example(scanner: ModuleType, example: str) -> None:
    assert_agree(scanner, example)


@pytest.mark.parametrize("example", SPEC_EXAMPLES)
def test_spec_example_as_task_list(scanner: ModuleType, example: str) -> None:
    tasks = as_task_list(example)
    assert_agree(scanner, tasks)
    assert_agree(scanner, tasks.replace("\n", "\r\n"))


def test_wrapping_really_produces_items() -> None:
    with_items = [e for e in SPEC_EXAMPLES if parse(as_task_list(e)).items]
    assert len(with_items) > len(SPEC_EXAMPLES) // 2


# One document per kind of disagreement the generated corpus found, with what markdown-it-py
# makes of it (lines 0-based).
def test_quote_continues_at_any_indentation(scanner: ModuleType) -> None:
    # markdown-it-py continues a block quote at an indented `>` (CommonMark: a lazy line), so
    # the heading inside ends the item.
    text = "> - [ ] a\n    > # h\n"
    assert_agree(scanner, text)
    (item,) = scanner.scan(text).items
    assert item.end_line == 0
    assert scanner.scan(text).headings == (Heading(0, 1, 1, "h", 1),)


def test_block_start_ends_lazy_line_in_two_quotes(scanner: ModuleType) -> None:
    # Inside two quotes an indented list marker is no lazy continuation: it ends both quotes
    # (and is indented code outside); inside one quote it is.
    two = "> > - [ ] open\n    * \n"
    one = "> - [ ] open\n    * \n"
    assert_agree(scanner, two)
    assert_agree(scanner, one)
    assert [i.end_line for i in scanner.scan(two).items] == [0]
    assert [i.end_line for i in scanner.scan(one).items] == [1]


@pytest.mark.parametrize(
    "text",
    [
        ">  >  \t* [x] tab\n",  # markdown-it-py keeps the `*` in the item's text: no task
        "> > \t- [ ] open\n",
        ">> \t10. \t[ ] tabbed\n",
        "> > > \t# Heading\n",
    ],
)
def test_tabs_inside_two_quotes(scanner: ModuleType, text: str) -> None:
    assert_agree(scanner, text)
    assert scanner.scan_only(text) is None  # left to markdown-it-py


def test_link_reference_definition_first_in_an_item(scanner: ModuleType) -> None:
    # The definition is no paragraph: the item is no plain item, and the paragraph after it is
    # what markdown-it-py's token stream shows as the item's first paragraph, a task.
    text = "- [a]: /url\n  [ ] task\n- [x]: y\n"
    assert_agree(scanner, text)
    checklist = scanner.scan(text)
    assert [(i.line, i.bullet_col, i.marker_col, i.text) for i in checklist.items] == [
        (1, 0, 3, "task")
    ]
    assert checklist.plain_items == ()


@pytest.mark.parametrize(
    "text",
    [
        "[a]: /url\n===\n",  # the definition, then a paragraph: no heading
        "[a]: /url\nfoo\n---\n",  # a heading `foo`
        "[a]:\n/url\n'title'\n- [ ] x\n",  # a definition over three lines
        "[a]: /url\n2. [ ] x\n",  # an ordered item may follow a definition
        "> [a]: /url\n> [b]: /v\n- [ ] x\n",
    ],
)
def test_link_reference_definitions_that_change_blocks(scanner: ModuleType, text: str) -> None:
    assert_agree(scanner, text)


@pytest.mark.parametrize(
    "text",
    [
        "[a]: /url\n\n- [ ] x\n",  # a definition alone: the scanner keeps the document
        "- [ ] see [a]: here\n",
        "- [WIP] thing\n  more\n",
    ],
)
def test_harmless_brackets_stay_with_the_scanner(scanner: ModuleType, text: str) -> None:
    assert scanner.scan_only(text) == reference_parse(text)


@pytest.mark.parametrize(
    "block",
    [
        "<!-- a\n\n  - [ ] in comment\n  -->",
        "<?php\n\n  - [ ] in processing instruction\n  ?>",
        "<!DOCTYPE x\n\n  - [ ] in declaration\n  >",
        "<![CDATA[\n\n  - [ ] in cdata\n  ]]>",
        "<script>\n\n  - [ ] in script\n  </script>",
        "<pre>\n\n  - [ ] in pre\n  </pre>",
        "<style>\n\n  - [ ] in style\n  </style>",
        "<textarea>\n\n  - [ ] in textarea\n  </textarea>",
    ],
)
def test_html_blocks_spanning_blank_lines_inside_items(scanner: ModuleType, block: str) -> None:
    text = "- [ ] outer\n  " + block.replace("\n", "\n  ") + "\n- [ ] after\n"
    assert_agree(scanner, text)
    assert [i.text for i in scanner.scan(text).items] == ["outer", "after"]


# A generated corpus: lines built from container prefixes, indentation and block starts.
PREFIXES = ["", "", "", "", "> ", ">", "> > ", ">> ", " > ", ">\t", "> \t", ">  > ", "> > > "]
INDENTS = ["", "", "", " ", "  ", "   ", "    ", "     ", "      ", "\t", " \t", "\t\t", "  \t"]
STARTS = ["- ", "* ", "+ ", "1. ", "2) ", "10. ", "-\t", "- - ", "1. - ", "-", "1.", "- > "]
STARTS += ["", "", "", ""]
BODIES = [
    *("[ ] open", "[x] done", "[X] done", "[~] canceled", "[-] canceled", "[/] started"),
    *("[?] blocked", "[!] unknown", "[ ]", "[x]\ttab", "[ ]  ", "[ ]x", "\t[ ] tabbed"),
    *("text é 漢", "more text", "# Heading", "## Sub #", "===", "---", "***", "- - -"),
    *("```", "```py", "~~~", "<div>", "</div>", "<!-- c", "-->", "<!-- x -->", "<span>"),
    *("<script>", "</script>", "<pre>", "</pre>", "<style>", "</style>", "<textarea>"),
    *("</textarea>", "<?php", "?>", "<!DOCTYPE html>", "<![CDATA[", "]]>", ">"),
    *("/url", "'title'", "", "", "", "    ", "\t"),
]
DEFINITIONS = ["[a]: /url", "[a]:", "[b]: /u 'x'", "[x]: y"]
LINE_ENDS = ["\n", "\n", "\r\n", "\r"]
FRONT_MATTER = ["---", "title: x", "- [ ] not an item", "---"]


def _document(lines: list[str], newline: str, front_matter: bool) -> str:
    return newline.join((FRONT_MATTER if front_matter else []) + lines) + newline


def _documents(bodies: list[str]) -> st.SearchStrategy[str]:
    line = st.tuples(*(st.sampled_from(part) for part in (PREFIXES, INDENTS, STARTS, bodies)))
    return st.builds(
        _document,
        st.lists(line.map("".join), min_size=1, max_size=14),
        st.sampled_from(LINE_ENDS),
        st.booleans(),
    )


def _needs_reference(text: str) -> bool:
    """What the scanner leaves to markdown-it-py: a possible link reference definition, or a
    tab after the second `>` of a line."""
    return "]:" in text or any(
        "\t" in line[line.find(">", line.find(">") + 1) :]
        for line in split_lines(text)
        if line.count(">") >= 2
    )


@settings(
    max_examples=1500,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(_documents(BODIES + DEFINITIONS))
def test_generated_documents(scanner: ModuleType, text: str) -> None:
    assert_agree(scanner, text)


@settings(
    max_examples=1500,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(_documents(BODIES))
def test_generated_documents_scanner_alone(scanner: ModuleType, text: str) -> None:
    # Without link reference definitions the scanner itself handles all but tabs in nested
    # quotes, and agrees.
    checklist = scanner.scan_only(text)
    if checklist is None:
        assert _needs_reference(text), text
    else:
        assert checklist == reference_parse(text), text


def test_custom_registry_agrees(scanner: ModuleType) -> None:
    registry = StateRegistry.from_settings(
        {"open": [" "], "inProgress": ["!"], "blocked": ["?"], "done": ["x"], "canceled": ["~"]}
    )
    assert_agree(scanner, "- [!] custom\n- [/] not registered here\n  - [x] nested\n", registry)


def sweep(count: int, seed: int) -> dict[str, int]:
    """Compare `count` random documents of the generated corpus; count the disagreements and
    the documents the scanner left to markdown-it-py."""
    rng = random.Random(seed)
    parts = (PREFIXES, INDENTS, STARTS, BODIES + DEFINITIONS)
    disagree = deferred = 0
    for _ in range(count):
        lines = ["".join(map(rng.choice, parts)) for _ in range(rng.randint(1, 14))]
        text = _document(lines, rng.choice(LINE_ENDS), rng.random() < 0.1)
        disagree += parse(text) != reference_parse(text)
        deferred += SCANNER.scan_only(text) is None
    return {"documents": count, "seed": seed, "disagree": disagree, "deferred": deferred}


if __name__ == "__main__":
    print(json.dumps(sweep(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1)))
