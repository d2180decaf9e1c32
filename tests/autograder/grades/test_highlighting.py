"""Highlighting: the dispatched lexers give pygments' own tokens, and the reused highlighter writes what
nbconvert's filter writes.

pygments itself is the reference: each lexer's tokens, for the course's own code and for generated
text made of the pieces its rules look for, against the same lexer class as pygments runs it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings as hypothesis_settings, strategies as st
from nbconvert.filters.highlight import Highlight2HTML

from autograder.grades import highlighting

ROOT = Path(__file__).resolve().parents[3]

SOURCE_TEXT = st.builds(
    str.__add__,
    st.sampled_from(
        ["", "%%bash\n", "%%HTML\n", "%%time\n", "  %%!\n", "!ls ", "!!ls", "%matplotlib inline\n", "np.*?"]
        + ["\n\n", "def f(x):\n\t", "x = 1 ", "%timeit?", "??", "  %sx ls\n"]
    ),
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from(list("\"'&<>;#%!?*. _x\n\t\r\x0c\x00")),
        max_size=120,
    ),
)

# what the lexers' rules look for: keywords, prefixes and quotes in both cases, brackets, comments,
# escapes, numbers, magics, blanks, and characters outside ASCII
PIECES = (
    "def ", "class ", "lambda", "import ", "from ", " as ", "async ", "await ", "match ", "case ", "lazy ",
    "if", "else", "for", "in", "not", "None", "True", "self", "print", "__init__", "__name__", "ValueError",
    "f'", 'F"', "rb'''", 'Rb"""', "br'", "T'", "u'", "B'", "rf'", "'", '"', "'''", '"""', "{", "}", "{{", "!r", ":>4",
    "(", ")", "[", "]", ",", ":", ";", ".", "...", "->", ":=", "==", "!=", "<<", "**", "@", "@dec", "~", "^",
    "#", "# note", "#!", "\\", "\\\n", "\\n", "\\x41", "\\N{DASH}", "0x1F", "0o17", "0b10", "1_000", "1.5e-3j", ".5",
    "%%time\n", "%timeit ", "!ls", "!!ls", "?", "??", "%", "$HOME", "${x}", "`cmd`", "<<EOF\n", "&&", "|",
    "<b>", "</b>", "<!--", "-->", "&amp;", "/*", "*/", "//", "true", "null", "-", "+",
    " ", "  ", "\t", "\n", "\r\n", "\x0c", "\x00", "é", "数据", "\u00a0", "\u212a", "x", "y1", "_",
)  # fmt: skip
PIECE_TEXT = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=40).map("".join)

LANGUAGES = ("python", "bash", "json", "c", "javascript", "html", "yaml", "sql", "rust", "markdown", "latex")


def _course_code() -> list[str]:
    """Every code cell of the course's source notebooks."""
    sources = []
    for path in sorted((ROOT / "source").rglob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                sources.append("".join(cell["source"]))
    return sources


COURSE_CODE = _course_code()
MADE: dict[str, tuple] = {}


def _pair(language: str) -> tuple:
    """(the dispatched lexer, a new lexer of the same class as pygments makes it): made once each."""
    from IPython.lib.lexers import IPython3Lexer
    from pygments.lexers import get_lexer_by_name

    if language not in MADE:
        fast, _ = highlighting.lexer_and_formatter(language)
        MADE[language] = (fast, IPython3Lexer() if language == "ipython3" else get_lexer_by_name(language))
    return MADE[language]


def _tokens(lexer, text: str) -> list:
    return list(lexer.get_tokens_unprocessed(text))


def test_the_course_lexes_as_pygments_lexes_it():
    assert len(COURSE_CODE) > 100
    for language in ("ipython3", "python"):
        fast, plain = _pair(language)
        assert fast.get_tokens_unprocessed != plain.get_tokens_unprocessed
        for source in COURSE_CODE:
            assert _tokens(fast, source) == _tokens(plain, source), source


@hypothesis_settings(max_examples=1500, deadline=None)
@given(text=PIECE_TEXT | SOURCE_TEXT, language=st.sampled_from(("ipython3", *LANGUAGES)))
@example(text="R'''x'''\nK = rB'\\n'", language="python")
def test_dispatched_lexers_give_pygments_tokens(text, language):
    fast, plain = _pair(language)
    assert _tokens(fast, text) == _tokens(plain, text)
    assert list(fast.get_tokens(text)) == list(plain.get_tokens(text))


def _rules() -> list[re.Pattern]:
    """Every rule's expression in every state of the lexers above."""
    found = {}
    for language in ("ipython3", *LANGUAGES):
        for rules in getattr(_pair(language)[1], "_tokens", {}).values():
            for rexmatch, _, _ in rules:
                owner = getattr(rexmatch, "__self__", None)
                if isinstance(owner, re.Pattern):
                    found[(owner.pattern, owner.flags)] = owner
    return list(found.values())


RULES = _rules()


@hypothesis_settings(max_examples=3000, deadline=None)
@given(rule=st.sampled_from(RULES), text=PIECE_TEXT)
def test_a_rule_never_matches_from_a_character_outside_its_first_characters(rule, text):
    """Wherever a rule matches, the text there begins with one of its first characters (or is not ASCII)."""
    starts = highlighting.first_characters(rule)
    if starts is None:
        return
    for pos in range(len(text) + 1):
        found = rule.match(text, pos)
        if found is not None:
            assert found.end() > pos, "a rule said never to match empty text matched it"
            assert not text[pos].isascii() or text[pos] in starts, (text[pos], rule.pattern)


@pytest.mark.parametrize(
    ("pattern", "flags", "inside", "outside"),
    [
        (r"abc", 0, "a", "Ab"),
        (r"(?i)(rb|br|r)(''')", 0, "rRbB", "'xu"),
        (r"\u212a", re.IGNORECASE, "kK", "x1"),
        (r"[^a-y]", 0, "z!\n", "ab"),
        (r"(?<!\.)\bself\b", 0, "s", ".e"),
        (r"(\s*)(x|y)?z", 0, " \t\nxyz", "a"),
        (r"\d+|[A-Z_]\w*", 0, "0_Q", "a("),
        (r"(?:ab)*+c", 0, "ac", "b"),
        (r"(?>a|b)c", 0, "ab", "c"),
        (r"(?=[ab])\w", 0, "ab_", " "),
    ],
)
def test_first_characters(pattern, flags, inside, outside):
    starts = highlighting.first_characters(re.compile(pattern, flags))
    assert starts is not None and set(inside) <= starts and not set(outside) & starts, sorted(starts or ())


@pytest.mark.parametrize("pattern", [r"a*", r"(x?)\1y", r"(a)?(?(1)b|c)", r"\b", r"(?=a)", r"x?y?"])
def test_rules_that_can_match_anywhere_are_tried_everywhere(pattern):
    """Empty matches, back-references and conditionals: no first characters (the rule is always tried)."""
    assert highlighting.first_characters(re.compile(pattern)) is None


def test_lexers_with_their_own_loop_are_left_as_they_came():
    from pygments.lexers import RubyLexer, TextLexer

    for lexer in (RubyLexer(), TextLexer()):
        method = lexer.get_tokens_unprocessed
        assert highlighting.dispatched(lexer).get_tokens_unprocessed == method


def test_the_magic_rules_are_guarded_and_lex_as_ipythons_lexer():
    """Lines that each of IPython's magic rules matches, lexed by the guarded lexer and by IPython's own."""
    from IPython.lib.lexers import IPython3Lexer

    guarded = highlighting.with_magic_rules_guarded(IPython3Lexer())
    assert len(guarded._tokens["root"]) < len(IPython3Lexer()._tokens["root"])
    lines = ["%%capture out\nx", " %%HTML\n<b>", "%%writefile a.py\nx", "%%foo bar\n", "%%!\nls", "%time?"]
    lines += ["x = a?", "??", "%sx ls\n", "%time f()\n", "!!ls\n", "!ls | x\n", "x != 1\n", " ?x.y*", "a.b*?? "]
    for text in lines + [line + "\n" + other for line in lines for other in lines]:
        assert list(guarded.get_tokens(text)) == list(IPython3Lexer().get_tokens(text)), text
        assert _tokens(_pair("ipython3")[0], text) == _tokens(IPython3Lexer(), text), text


REUSED = highlighting.reusing_highlighter(Highlight2HTML(pygments_lexer="ipython3"))


@hypothesis_settings(max_examples=1500, deadline=None)
@given(source=SOURCE_TEXT, metadata=st.sampled_from([None, {}, {"magics_language": "bash"}, {"tags": ["x"]}]))
def test_the_reused_highlighter_writes_what_the_filter_writes(source, metadata):
    """One reused highlighter across every example (its lexers and formatters keep no state between
    cells, and IPython's magic rules are guarded) against a new filter each time, as nbconvert makes it."""
    highlight = Highlight2HTML(pygments_lexer="ipython3")
    assert REUSED is not highlight
    assert REUSED(source, metadata=metadata) == highlight(source, metadata=metadata)
    for language in ("python", "ipython2", "bash", "no-such-language"):
        assert REUSED(source, language, metadata) == highlight(source, language, metadata)
