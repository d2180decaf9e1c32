"""Code highlighted as nbconvert's `highlight_code` filter highlights it, character for character, faster.

pygments' RegexLexer tries a state's rules one Python call at a time: a plain name in Python code is
tried against 55 rules before the name rule matches it, and each student's answer on a feedback page
is new text to lex. Here a lexer's rules are the same rules, run differently: for each state and each
ASCII character, only the rules that can match text starting with that character (read from each
rule's own regular expression), joined into one expression whose alternatives keep their order, so
that the first rule to match is found in one call, as pygments finds it in many. Text at any other
character, and rules this cannot read, are tried as pygments tries them. The token stream is
pygments' own; `tests/autograder/grades/test_highlighting.py` checks it against pygments on many
lexers and on generated text.
"""

from __future__ import annotations

import functools
import re
from html import escape as html_escape

ASCII = tuple(chr(k) for k in range(128))
ANY_ASCII = frozenset(ASCII)


def reusing_highlighter(highlight):
    """nbconvert's `highlight_code` filter, made once: the filter builds a new pygments formatter (its
    stylesheet included) and lexer for every cell; this one keeps one of each per language and calls
    pygments as the filter does, for a cell with no cell-magic language and a filter with no formatter
    options (anything else goes to the filter itself)."""
    from nbconvert.filters.highlight import Highlight2HTML

    if type(highlight) is not Highlight2HTML or highlight.extra_formatter_options:
        return highlight
    made: dict = {}

    def reused(source, language=None, metadata=None):
        from pygments import highlight as pygments_highlight

        language = language or highlight.pygments_lexer
        if language not in made:
            made[language] = lexer_and_formatter(language)
        if made[language] is None or (language.startswith("ipython") and metadata and "magics_language" in metadata):
            return highlight(source, language, metadata)
        lexer, formatter = made[language]
        return pygments_highlight(source if len(source) > 0 else " ", lexer, formatter)

    return reused


def lexer_and_formatter(language: str) -> tuple | None:
    """What nbconvert's filter makes for `language` on each call, its lexer dispatched by character
    (None where the filter would warn or fall back)."""
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    if language == "ipython3":
        try:
            from IPython.lib.lexers import IPython3Lexer
        except ModuleNotFoundError:
            return None
        lexer = with_magic_rules_guarded(IPython3Lexer())
    elif language.startswith("ipython"):
        return None
    else:
        try:
            lexer = get_lexer_by_name(language)
        except ClassNotFound:
            return None
    return dispatched(lexer), HtmlFormatter(cssclass=html_escape(f" highlight hl-{language}"))


# Each of IPython's magic rules, as the start of its pattern: a match of any of them at a position
# needs text there that MAGIC_NEEDS matches (a "%" or "!", or "%%" or "?" after blanks and a name).
MAGIC_RULE = re.compile(
    r"\(\?i?s\)\((?:\^)?\\s\*\)\(%%|\(%%\?\)\(|\(%\)\(|\\b\(\\\?|\^\(!!\)\(|\(!\)\(|\^\(\\s\*\)\(\\\?"
    r"|\(\\s\*%\{0,2\}\[\\w\\\.\\\*\]\*\)\(\\\?"
)
MAGIC_NEEDS = re.compile(r"[%!]|\s*%%|\s*%{0,2}[\w.*]*\?")


def with_magic_rules_guarded(lexer):
    """IPython's lexer tries its 27 magic rules, one regular expression each, before Python's at every
    token of its root state; here they are one entry, tried in the same order only where MAGIC_NEEDS
    matches (where it does not, none of them can), with each rule's own action. The lexer as it came
    where its rules are not the ones this knows."""
    from pygments.lexers import PythonLexer

    root = lexer._tokens.get("root", [])
    python = [rule[0].__self__.pattern for rule in PythonLexer()._tokens["root"]]
    count = len(root) - len(python)
    magic = root[:count]
    if count < 1 or [rule[0].__self__.pattern for rule in root[count:]] != python:
        return lexer
    if not all(new is None and callable(act) and MAGIC_RULE.match(rx.__self__.pattern) for rx, act, new in magic):
        return lexer
    actions = {rx.__self__: act for rx, act, _ in magic}

    def match(text, pos):
        if MAGIC_NEEDS.match(text, pos) is None:
            return None
        for rx, _, _ in magic:
            found = rx(text, pos)
            if found:
                return found
        return None

    def act(owner, found):
        yield from actions[found.re](owner, found)

    lexer._tokens = dict(lexer._tokens, root=[(match, act, None), *root[count:]])
    return lexer


def dispatched(lexer):
    """`lexer` with its tokens found by character dispatch (see the module's docstring), or as it came
    where its class lexes other than pygments' RegexLexer does (its own loop, or a context object)."""
    from pygments.lexer import RegexLexer

    if not isinstance(lexer, RegexLexer) or type(lexer).get_tokens_unprocessed is not RegexLexer.get_tokens_unprocessed:
        return lexer
    lexer.get_tokens_unprocessed = _dispatching_loop(lexer, StateTables(lexer._tokens, lexer.flags))
    return lexer


class StateTables(dict):
    """{state: its tables}, each made the first time the lexer enters the state (most never do)."""

    def __init__(self, rules: dict, flags: int) -> None:
        super().__init__()
        self._rules = rules
        self._flags = flags

    def __missing__(self, state: str) -> tuple[list, list]:
        self[state] = _state_tables(self._rules[state], self._flags)
        return self[state]


@functools.lru_cache(maxsize=4096)
def first_characters(pattern: re.Pattern) -> frozenset[str] | None:
    """The ASCII characters a match of `pattern` can begin with (a superset), or None where it can
    match empty text or this cannot tell: such a rule is tried at every character."""
    from re import _parser

    try:
        parsed = _parser.parse(pattern.pattern, pattern.flags)
    except Exception:  # a pattern the parser of this Python reads differently: tried everywhere
        return None
    chars, nullable = _first(parsed, bool(pattern.flags & re.IGNORECASE))
    return None if nullable else frozenset(chars)


def _first(items, icase: bool) -> tuple[set[str], bool]:
    """(the ASCII characters a match of this sequence can begin with, whether it can match empty text)."""
    from re import _constants as c

    found: set[str] = set()
    for op, arg in items:
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue  # zero width: it narrows where a match starts, never widens it
        if op is c.LITERAL:
            return found | _literal(arg, icase), False
        if op is c.IN:
            return found | _in_set(arg, icase), False
        if op in (c.NOT_LITERAL, c.ANY):
            return found | ANY_ASCII, False
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            least, _, body = arg
            chars, nullable = _first(body, icase)
            found |= chars
            if least > 0 and not nullable:
                return found, False
        elif op is c.SUBPATTERN:
            _, added, _, body = arg
            chars, nullable = _first(body, icase or bool(added & re.IGNORECASE))
            found |= chars
            if not nullable:
                return found, False
        elif op is c.ATOMIC_GROUP:
            chars, nullable = _first(arg, icase)
            found |= chars
            if not nullable:
                return found, False
        elif op is c.BRANCH:
            nullable = False
            for body in arg[1]:
                chars, empty = _first(body, icase)
                found |= chars
                nullable = nullable or empty
            if not nullable:
                return found, False
        else:  # a back-reference, a conditional, anything new: it may match anywhere
            return set(ANY_ASCII), True
    return found, True


def _literal(code: int, icase: bool) -> set[str]:
    if not icase:
        return {chr(code)} if code < 128 else set()
    return _matching(f"\\U{code:08x}")


def _matching(pattern: str) -> set[str]:
    """The ASCII characters `pattern` matches ignoring case: the regular expression engine says which
    (a non-ASCII letter, the Kelvin sign, can match an ASCII one)."""
    compiled = re.compile(pattern, re.IGNORECASE)
    return {ch for ch in ASCII if compiled.fullmatch(ch)}


CATEGORY_PATTERNS = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
    "CATEGORY_LINEBREAK": r"\n",
    "CATEGORY_NOT_LINEBREAK": r"[^\n]",
}


def _in_set(items, icase: bool) -> set[str]:
    """The ASCII characters a character class admits (a superset: a negated class ignoring case is
    read as if it heeded case, which admits more)."""
    from re import _constants as c

    negated = any(op is c.NEGATE for op, _ in items)
    icase = icase and not negated
    chars: set[str] = set()
    for op, arg in items:
        if op is c.NEGATE:
            continue
        if op is c.LITERAL:
            chars |= _literal(arg, icase)
        elif op is c.RANGE:
            low, high = arg
            if icase:
                chars |= _matching(f"[\\U{low:08x}-\\U{high:08x}]")
            else:
                chars |= {chr(k) for k in range(low, min(high, 127) + 1)}
        elif op is c.CATEGORY and str(arg) in CATEGORY_PATTERNS:
            chars |= {ch for ch in ASCII if re.match(CATEGORY_PATTERNS[str(arg)], ch)}
        else:
            return set(ANY_ASCII)
    return set(ANY_ASCII) - chars if negated else chars


def _state_tables(rules: list, flags: int) -> tuple[list, list]:
    """(one table per ASCII character, the table for any other character and the end of the text). A
    table is a list of (joined, match, what): a run of rules joined into one expression, `what` mapping
    the group each rule is wrapped in to the rule; or one rule as pygments holds it, `what` its action
    and new state."""
    alternatives = [_alternative(rule, flags) for rule in rules]
    starts = [first_characters(rule[0].__self__) if alt is not None else None for rule, alt in zip(rules, alternatives)]
    made: dict[tuple[int, ...], list] = {}

    def table(chosen: tuple[int, ...]) -> list:
        if chosen not in made:
            entries: list = []
            run: list = []
            for k in chosen:
                if alternatives[k] is not None:
                    run.append((alternatives[k], rules[k]))
                    continue
                entries += _joined(run, flags)
                run = []
                rexmatch, action, new_state = rules[k]
                entries.append((False, rexmatch, (action, new_state)))
            made[chosen] = entries + _joined(run, flags)
        return made[chosen]

    every = table(tuple(range(len(rules))))
    per_character = [table(tuple(k for k, s in enumerate(starts) if s is None or ch in s)) for ch in ASCII]
    return per_character, every


LEADING_FLAGS = re.compile(r"\(\?([aimsux]+)\)")


def _alternative(rule, flags: int) -> str | None:
    """A rule's expression as one alternative of a joined one, meaning the same there (its leading global
    flags made scoped); None where it cannot be: not compiled with the lexer's flags, verbose (a comment
    would swallow the closing parenthesis), or with a group another part refers to (a back-reference or
    a conditional: numbers and names change when joined)."""
    owner = getattr(rule[0], "__self__", None)
    if not isinstance(owner, re.Pattern) or not isinstance(owner.pattern, str) or owner.groupindex:
        return None
    pattern = owner.pattern
    if owner.flags & re.VERBOSE or re.search(r"\\[1-9]|\(\?\(", pattern):
        return None
    try:
        plain = re.compile(pattern, flags)
    except re.error:
        return None
    if plain.flags != owner.flags or plain.groups != owner.groups:
        return None
    found = LEADING_FLAGS.match(pattern)
    return f"(?{found.group(1)}:{pattern[found.end() :]})" if found else pattern


def _joined(run: list, flags: int) -> list:
    """One entry for a run of (alternative, rule), or none for an empty run."""
    if not run:
        return []
    parts, which, group = [], {}, 1
    for alternative, rule in run:
        parts.append(f"({alternative})")
        which[group] = rule
        group += 1 + rule[0].__self__.groups
    return [(True, re.compile("|".join(parts), flags).match, which)]


def _dispatching_loop(lexer, tables: dict):
    """pygments' RegexLexer.get_tokens_unprocessed, finding each token's rule through `tables`."""
    from pygments.token import Error, Whitespace, _TokenType

    def get_tokens_unprocessed(text, stack=("root",)):
        pos = 0
        end = len(text)
        statestack = list(stack)
        per_character, every = tables[statestack[-1]]
        while 1:
            code = ord(text[pos]) if pos < end else 128
            for joined, rexmatch, what in per_character[code] if code < 128 else every:
                m = rexmatch(text, pos)
                if m:
                    if joined:
                        rule_match, action, new_state = what[m.lastindex]
                        if action is not None:
                            if type(action) is _TokenType:
                                yield pos, action, m.group()
                            else:
                                yield from action(lexer, rule_match(text, pos))
                    else:
                        action, new_state = what
                        if action is not None:
                            if type(action) is _TokenType:
                                yield pos, action, m.group()
                            else:
                                yield from action(lexer, m)
                    pos = m.end()
                    if new_state is not None:
                        if isinstance(new_state, tuple):
                            for state in new_state:
                                if state == "#pop":
                                    if len(statestack) > 1:
                                        statestack.pop()
                                elif state == "#push":
                                    statestack.append(statestack[-1])
                                else:
                                    statestack.append(state)
                        elif isinstance(new_state, int):
                            if abs(new_state) >= len(statestack):
                                del statestack[1:]
                            else:
                                del statestack[new_state:]
                        elif new_state == "#push":
                            statestack.append(statestack[-1])
                        else:
                            raise ValueError(f"wrong state def: {new_state!r}")
                        per_character, every = tables[statestack[-1]]
                    break
            else:
                if pos >= end:
                    break
                if text[pos] == "\n":
                    statestack = ["root"]
                    per_character, every = tables["root"]
                    yield pos, Whitespace, "\n"
                    pos += 1
                    continue
                yield pos, Error, text[pos]
                pos += 1

    return get_tokens_unprocessed
