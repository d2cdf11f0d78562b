"""Tokenizer for the Webots world (``.wbt``) and PROTO (``.proto``) formats.

Lexical rules follow Webots' own tokenizer: ``#`` comments to end of line, commas are whitespace,
``{ } [ ]`` are single-character tokens, strings are one-line with only ``\\"`` and ``\\\\`` escapes
(``\\n`` is kept as the two characters backslash-n), a number is a token starting with one of
``+-0123456789.`` that parses as a double, and everything else is a word (identifier or keyword).
Template markers ``%<`` and ``%{`` belong only in the body of a procedural PROTO, which the parser keeps
as a template (:mod:`wbsim.world.templates`) instead of tokenizing it; met anywhere else they are errors.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from wbsim.errors import SourceLocation, WorldSyntaxError

__all__ = [
    "TokenKind", "Token", "Header", "tokenize", "iter_tokens", "scan_tokens", "read_header", "TEMPLATE_MARKER_RE",
    "template_error",
]


class TokenKind(enum.Enum):
    """Kinds of tokens produced by :func:`tokenize`."""

    LBRACE = "{"
    RBRACE = "}"
    LBRACKET = "["
    RBRACKET = "]"
    STRING = "string"
    NUMBER = "number"
    WORD = "word"
    EOF = "end of file"


class Token(NamedTuple):
    """One token with its source position (immutable; a named tuple, cheaper to create than a frozen
    dataclass: a large world has hundreds of thousands).

    Attributes:
        kind: the token kind.
        text: the raw source text of the token (strings: with quotes and escapes as written).
        value: the decoded value: float for numbers, the unescaped str for strings, the text otherwise.
        location: where the token starts.
    """

    kind: TokenKind
    text: str
    value: float | str
    location: SourceLocation

    def describe(self) -> str:
        """A short human description for error messages, e.g. ``'}'`` or ``end of file``."""
        if self.kind is TokenKind.EOF:
            return "end of file"
        return repr(self.text) if self.kind is not TokenKind.STRING else f"string {self.text}"


@dataclass(frozen=True, slots=True)
class Header:
    """The first line of a Webots file: ``#VRML_SIM <version> utf8``.

    Attributes:
        version: the version string, e.g. ``R2023b``.
    """

    version: str


_PUNCT = {"{": TokenKind.LBRACE, "}": TokenKind.RBRACE, "[": TokenKind.LBRACKET, "]": TokenKind.RBRACKET}
_NUMBER_START = frozenset("+-0123456789.")
_HEADER_RE = re.compile(r"^#VRML_SIM (\S+) utf8[ \t]*$")
# One match per token: the whitespace, commas and comments before it (atomic: never re-entered), then the
# token itself, or the end of the text; every character starts one of the alternatives.
_SKIP_TOKEN_RE = re.compile(
    r"""
    (?>(?:[\s,]+|\#[^\n]*)*)
    (?:
      (?P<string>"(?:[^"\\\n]|\\[^\n])*")
    | (?P<unclosed>"[^\n]*)
    | (?P<punct>[{}\[\]])
    | (?P<template>%[<{])
    | (?P<word>[^\s,{}\[\]"\#]+)
    | (?P<end>\Z)
    )
    """,
    re.VERBOSE,
)
_ESCAPE_RE = re.compile(r"\\(.)")
TEMPLATE_MARKER_RE = re.compile(r"%[<{]")
"""Start of a template statement (JavaScript ``%<`` or Lua ``%{``) of a procedural PROTO."""


def template_error(marker: str, location: SourceLocation) -> WorldSyntaxError:
    """The error for a template marker (``%<`` or ``%{``) of a procedural PROTO."""
    return WorldSyntaxError(
        f"Template statement {marker!r}: template statements are only allowed in the body of a procedural "
        "PROTO (JavaScript templates; Lua templates are not supported).",
        location,
    )


def read_header(text: str, file: str) -> Header:
    """Check the mandatory first line and return the version it declares.

    Raises:
        WorldSyntaxError: ``Missing header.`` when the file does not start with ``#VRML_SIM``,
            ``Invalid header.`` when the line does not match ``#VRML_SIM <version> utf8``.
    """
    first_line = text.split("\n", 1)[0].rstrip("\r")
    if not first_line.startswith("#VRML_SIM"):
        raise WorldSyntaxError(
            "Missing header: the first line must be '#VRML_SIM <version> utf8', e.g. '#VRML_SIM R2023b utf8'.",
            SourceLocation(file, 1, 1),
        )
    match = _HEADER_RE.match(first_line)
    if match is None:
        raise WorldSyntaxError(
            f"Invalid header {first_line!r}: expected '#VRML_SIM <version> utf8'.", SourceLocation(file, 1, 1)
        )
    return Header(version=match.group(1))


def _unescape(body: str, location: SourceLocation) -> str:
    """Decode the escapes of a string body; ``location`` is where the opening quote is."""

    def replace(match: re.Match[str]) -> str:
        char = match.group(1)
        if char in '"\\':
            return char
        if char == "n":
            return "\\n"  # Webots keeps backslash-n as two characters
        # Strings are on one line, so the backslash is on the quote's line, after the quote.
        where = SourceLocation(location.file, location.line, location.column + 1 + match.start())
        raise WorldSyntaxError(
            f"Invalid escaped character '\\{char}' in string: only \\\" and \\\\ are allowed.", where
        )

    return _ESCAPE_RE.sub(replace, body)


def tokenize(text: str, file: str, *, proto: bool = False) -> list[Token]:
    """Split the text of a world or PROTO file into tokens.

    The header line is a comment for the tokenizer; call :func:`read_header` to check it.

    Args:
        text: the whole file content (``\\r\\n`` line endings are accepted).
        file: the file name used in locations of tokens and errors.
        proto: True for a PROTO file, where a template marker inside a string also marks a
            procedural PROTO (as in Webots, which looks for the markers anywhere in the file).

    Returns:
        The tokens in order, ending with one ``EOF`` token.

    Raises:
        WorldSyntaxError: unclosed string, invalid escape, template marker (procedural PROTO),
            or a token that starts like a number but is not one.
    """
    tokens, error = scan_tokens(text, file, proto=proto)
    if error is not None:
        raise error
    return tokens


def iter_tokens(text: str, file: str, *, proto: bool = False) -> Iterator[Token]:
    """Like :func:`tokenize`, but yields tokens one at a time, so that a lexical error is raised only
    when the parser reaches it (and can say in which node it is)."""
    tokens, error = scan_tokens(text, file, proto=proto)
    yield from tokens
    if error is not None:
        raise error


def scan_tokens(text: str, file: str, *, proto: bool = False) -> tuple[list[Token], WorldSyntaxError | None]:
    """The tokens of a world or PROTO file up to its first lexical error, and that error (None if there is
    none; then the list ends with the ``EOF`` token). A caller raises the error when it reaches the end of
    the list, where the error is (the parser does, to name the node the error is in).

    One regular-expression match per token (whitespace, commas and comments are skipped inside it), with
    the line counted from the newlines it skipped: the per-token cost of a large world's load.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    tokens: list[Token] = []
    append = tokens.append
    line, line_start = 1, 0  # the current line and the offset where it starts
    previous_end = 0
    number_start, punct = _NUMBER_START, _PUNCT
    word_kind, number_kind, string_kind = TokenKind.WORD, TokenKind.NUMBER, TokenKind.STRING
    count, rfind = text.count, text.rfind
    # Named tuples made with tuple.__new__ directly: their own __new__ is a Python function, a frame more per
    # tuple (two per token). The tuples are the same.
    new, token_type, location_type = tuple.__new__, Token, SourceLocation
    try:
        for match in _SKIP_TOKEN_RE.finditer(text):
            group = match.lastgroup
            start, end = match.span(group)  # the token ends the match
            if count("\n", previous_end, start):
                line += count("\n", previous_end, start)
                line_start = rfind("\n", previous_end, start) + 1
            previous_end = end
            raw = text[start:end]
            location = new(location_type, (file, line, start - line_start + 1))
            if group == "word":
                if raw[0] in number_start:
                    if "_" in raw:  # Python's float() accepts digit separators, Webots does not
                        raise WorldSyntaxError(f"Invalid number {raw!r}.", location)
                    try:
                        number = float(raw)
                    except ValueError:
                        raise WorldSyntaxError(f"Invalid number {raw!r}.", location) from None
                    if not math.isfinite(number):  # float() also accepts "+inf", "-nan" and overflows to inf
                        raise WorldSyntaxError(f"Invalid number {raw!r}: numbers must be finite.", location)
                    append(new(token_type, (number_kind, raw, number, location)))
                else:
                    if "%" in raw:
                        # A marker glued to a word (``x%<``, or ``x%{`` where the word stops before the brace).
                        marker = TEMPLATE_MARKER_RE.search(text, start, previous_end + 1)
                        if marker is not None:
                            raise template_error(marker.group(), SourceLocation(file, line,
                                                                                marker.start() - line_start + 1))
                    append(new(token_type, (word_kind, raw, raw, location)))
            elif group == "punct":
                append(new(token_type, (punct[raw], raw, raw, location)))
            elif group == "string":
                if proto:
                    marker = TEMPLATE_MARKER_RE.search(raw)
                    if marker is not None:
                        raise template_error(marker.group(), SourceLocation(file, line,
                                                                            start + marker.start() - line_start + 1))
                body = raw[1:-1]
                append(Token(string_kind, raw, _unescape(body, location) if "\\" in body else body, location))
            elif group == "unclosed":
                raise WorldSyntaxError("Unclosed string literal: a string must end on the line it starts.", location)
            elif group == "template":
                raise template_error(raw, location)
            else:  # the end of the text (finditer could match it once more, empty, after trailing whitespace)
                append(Token(TokenKind.EOF, "", "", location))
                break
    except WorldSyntaxError as error:
        return tokens, error
    return tokens, None
