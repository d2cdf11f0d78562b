"""Tokenizer for the Webots world (``.wbt``) and PROTO (``.proto``) formats.

Lexical rules follow Webots' own tokenizer: ``#`` comments to end of line, commas are whitespace,
``{ } [ ]`` are single-character tokens, strings are one-line with only ``\\"`` and ``\\\\`` escapes
(``\\n`` is kept as the two characters backslash-n), a number is a token starting with one of
``+-0123456789.`` that parses as a double, and everything else is a word (identifier or keyword).
Template markers ``%<`` and ``%{`` belong only in the body of a procedural PROTO, which the parser keeps
as a template (:mod:`wbsim.world.templates`) instead of tokenizing it; met anywhere else they are errors.
"""

from __future__ import annotations

import bisect
import enum
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from wbsim.errors import SourceLocation, WorldSyntaxError

__all__ = [
    "TokenKind", "Token", "Header", "tokenize", "iter_tokens", "read_header", "TEMPLATE_MARKER_RE",
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


@dataclass(frozen=True, slots=True)
class Token:
    """One token with its source position.

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
_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[^\S\n]+|,+)
  | (?P<nl>\n)
  | (?P<comment>\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\[^\n])*")
  | (?P<unclosed>"[^\n]*)
  | (?P<punct>[{}\[\]])
  | (?P<template>%[<{])
  | (?P<word>[^\s,{}\[\]"\#]+)
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
    return list(iter_tokens(text, file, proto=proto))


def iter_tokens(text: str, file: str, *, proto: bool = False) -> Iterator[Token]:
    """Like :func:`tokenize`, but yields tokens one at a time, so that a lexical error is raised only
    when the parser reaches it (and can say in which node it is)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    line_starts = [0]
    line_starts.extend(m.end() for m in re.finditer("\n", text))

    def location_of(offset: int) -> SourceLocation:
        line = bisect.bisect_right(line_starts, offset)
        return SourceLocation(file, line, offset - line_starts[line - 1] + 1)

    for match in _TOKEN_RE.finditer(text):
        group = match.lastgroup
        if group in ("ws", "nl", "comment"):
            continue
        raw = match.group()
        location = location_of(match.start())
        if group == "word":
            if raw[0] in _NUMBER_START:
                if "_" in raw:  # Python's float() accepts digit separators, Webots does not
                    raise WorldSyntaxError(f"Invalid number {raw!r}.", location)
                try:
                    number = float(raw)
                except ValueError:
                    raise WorldSyntaxError(f"Invalid number {raw!r}.", location) from None
                if not math.isfinite(number):  # float() also accepts "+inf", "-nan" and overflows to inf
                    raise WorldSyntaxError(f"Invalid number {raw!r}: numbers must be finite.", location)
                yield Token(TokenKind.NUMBER, raw, number, location)
            else:
                # A marker glued to a word (``x%<``, or ``x%{`` where the word stops before the brace).
                marker = TEMPLATE_MARKER_RE.search(text, match.start(), match.end() + 1)
                if marker is not None:
                    raise template_error(marker.group(), location_of(marker.start()))
                yield Token(TokenKind.WORD, raw, raw, location)
        elif group == "punct":
            yield Token(_PUNCT[raw], raw, raw, location)
        elif group == "string":
            if proto:
                marker = TEMPLATE_MARKER_RE.search(raw)
                if marker is not None:
                    raise template_error(marker.group(), location_of(match.start() + marker.start()))
            yield Token(TokenKind.STRING, raw, _unescape(raw[1:-1], location), location)
        elif group == "unclosed":
            raise WorldSyntaxError("Unclosed string literal: a string must end on the line it starts.", location)
        elif group == "template":
            raise template_error(raw, location)
    yield Token(TokenKind.EOF, "", "", location_of(len(text)))
