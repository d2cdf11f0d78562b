"""Tests of the world-file tokenizer: header, comments, whitespace, strings, numbers, words, templates."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wbsim.errors import SourceLocation, WorldSyntaxError
from wbsim.world.lexer import Header, Token, TokenKind, iter_tokens, read_header, template_error, tokenize

F = "f.wbt"


def kinds(text: str) -> list[TokenKind]:
    return [t.kind for t in tokenize(text, F)]


def values(text: str) -> list[object]:
    return [t.value for t in tokenize(text, F)[:-1]]


def syntax_error(text: str) -> WorldSyntaxError:
    with pytest.raises(WorldSyntaxError) as info:
        tokenize(text, F)
    return info.value


# -- header ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("#VRML_SIM R2023b utf8", "R2023b"),
        ("#VRML_SIM R2025a utf8\n", "R2025a"),
        ("#VRML_SIM R2023b-rev1 utf8 \t", "R2023b-rev1"),
        ("#VRML_SIM V8.6.2 utf8\r\nSolid {}", "V8.6.2"),
    ],
)
def test_read_header_accepts_valid_headers(line: str, version: str) -> None:
    assert read_header(line, F) == Header(version=version)


@pytest.mark.parametrize("text", ["", "Solid {}", "\n#VRML_SIM R2023b utf8", " #VRML_SIM R2023b utf8", "# VRML_SIM R2023b utf8",
                                  "#VRML_V2.0 utf8"])
def test_missing_header(text: str) -> None:
    with pytest.raises(WorldSyntaxError) as info:
        read_header(text, F)
    assert info.value.message.startswith("Missing header")
    assert "#VRML_SIM <version> utf8" in info.value.message
    assert info.value.location == SourceLocation(F, 1, 1)


@pytest.mark.parametrize(
    "text",
    ["#VRML_SIM R2023b", "#VRML_SIM R2023b utf-8", "#VRML_SIMR2023b utf8", "#VRML_SIM  R2023b utf8",
     "#VRML_SIM R2023b utf8 extra", "#VRML_SIM utf8"],
)
def test_invalid_header(text: str) -> None:
    with pytest.raises(WorldSyntaxError) as info:
        read_header(text, F)
    assert info.value.message.startswith("Invalid header")
    assert repr(text) in info.value.message
    assert info.value.location == SourceLocation(F, 1, 1)


def test_header_line_is_a_comment_for_the_tokenizer() -> None:
    assert kinds("#VRML_SIM R2023b utf8\nSolid {}") == [
        TokenKind.WORD, TokenKind.LBRACE, TokenKind.RBRACE, TokenKind.EOF
    ]


# -- comments, whitespace, punctuation ------------------------------------------------------------------


def test_comments_run_to_end_of_line_anywhere() -> None:
    text = "# a comment { [ \"\nSolid # trailing } ]\n{ size 1 2# glued\n}"
    assert values(text) == ["Solid", "{", "size", 1.0, 2.0, "}"]


def test_hash_inside_string_is_not_a_comment() -> None:
    assert values('"a # b" c') == ["a # b", "c"]


def test_commas_are_whitespace() -> None:
    assert values("1,2 ,, 3,[4,5],,,") == [1.0, 2.0, 3.0, "[", 4.0, 5.0, "]"]
    assert values("a,b") == ["a", "b"]


def test_all_whitespace_kinds_separate_tokens() -> None:
    assert values("a\tb\x0bc\x0cd\r\ne\rf\u00a0g") == ["a", "b", "c", "d", "e", "f", "g"]


def test_punctuation_is_a_token_by_itself() -> None:
    tokens = tokenize("a{b}c[d]e", F)
    assert [(t.kind, t.text) for t in tokens] == [
        (TokenKind.WORD, "a"), (TokenKind.LBRACE, "{"), (TokenKind.WORD, "b"), (TokenKind.RBRACE, "}"),
        (TokenKind.WORD, "c"), (TokenKind.LBRACKET, "["), (TokenKind.WORD, "d"), (TokenKind.RBRACKET, "]"),
        (TokenKind.WORD, "e"), (TokenKind.EOF, ""),
    ]


def test_empty_text_gives_only_eof() -> None:
    tokens = tokenize("", F)
    assert tokens == [Token(TokenKind.EOF, "", "", SourceLocation(F, 1, 1))]


# -- locations --------------------------------------------------------------------------------------------


def test_token_locations_are_one_based_line_and_column() -> None:
    text = "#VRML_SIM R2023b utf8\nSolid {\n\ttranslation 1 2 3\n}"
    tokens = tokenize(text, F)
    assert [(t.text, t.location.line, t.location.column) for t in tokens] == [
        ("Solid", 2, 1), ("{", 2, 7), ("translation", 3, 2), ("1", 3, 14), ("2", 3, 16), ("3", 3, 18),
        ("}", 4, 1), ("", 4, 2),
    ]
    assert all(t.location.file == F for t in tokens)


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_locations_with_any_line_ending(newline: str) -> None:
    tokens = tokenize(newline.join(["a", "  b", "c d"]), F)
    assert [(t.location.line, t.location.column) for t in tokens[:-1]] == [(1, 1), (2, 3), (3, 1), (3, 3)]


def test_columns_count_characters_not_bytes() -> None:
    tokens = tokenize('"é€😀" x', F)
    assert tokens[1].location == SourceLocation(F, 1, 7)


def test_eof_location_is_after_last_character() -> None:
    assert tokenize("ab\ncd\n", F)[-1].location == SourceLocation(F, 3, 1)


# -- strings --------------------------------------------------------------------------------------------


def test_strings_decode_quote_and_backslash_escapes() -> None:
    tokens = tokenize(r'"say \"hi\"" "back\\slash" "" "tab	ok"', F)
    assert [t.value for t in tokens[:-1]] == ['say "hi"', "back\\slash", "", "tab\tok"]
    assert tokens[0].kind is TokenKind.STRING
    assert tokens[0].text == r'"say \"hi\""'


def test_backslash_n_is_kept_as_two_characters() -> None:
    (token, _) = tokenize(r'"line1\nline2"', F)
    assert token.value == "line1\\nline2"
    assert len(token.value) == len("line1") + 2 + len("line2")


def test_string_with_punctuation_commas_and_keywords_is_one_token() -> None:
    assert values('"{ [ , ] } DEF USE 1.5"') == ["{ [ , ] } DEF USE 1.5"]


@pytest.mark.parametrize(("escape", "column"), [("t", 6), ("'", 6), ("r", 6), ("u", 6), ("0", 6), (" ", 6)])
def test_other_escapes_are_errors_at_the_backslash(escape: str, column: int) -> None:
    error = syntax_error(f'x "ab\\{escape}c"')
    assert error.message.startswith("Invalid escaped character")
    assert f"'\\{escape}'" in error.message
    assert error.location == SourceLocation(F, 1, column)


def test_invalid_escape_after_valid_escapes_is_located_exactly() -> None:
    error = syntax_error('\n  "a\\"b\\\\c\\x"')
    assert error.location == SourceLocation(F, 2, 11)  # the backslash of \\x


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [('name "abc', 1, 6), ('a\n  "abc\ndef"', 2, 3), ('"abc\\"', 1, 1), ('"abc\\', 1, 1), ('ok "x" "', 1, 8),
     ('"a\r\nb"', 1, 1)],
)
def test_unclosed_string_literal(text: str, line: int, column: int) -> None:
    error = syntax_error(text)
    assert error.message.startswith("Unclosed string literal")
    assert error.location == SourceLocation(F, line, column)


# -- numbers ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("0", 0.0), ("12", 12.0), ("-3", -3.0), ("+4", 4.0), ("1.5", 1.5), (".5", 0.5), ("-.5", -0.5), ("5.", 5.0),
     ("1e3", 1000.0), ("1E-3", 0.001), ("-2.5e+2", -250.0), ("0.261799387", 0.261799387), ("007", 7.0)],
)
def test_numbers(text: str, value: float) -> None:
    (token, _) = tokenize(text, F)
    assert token.kind is TokenKind.NUMBER
    assert token.value == value
    assert isinstance(token.value, float)
    assert token.text == text


@pytest.mark.parametrize("text", ["1.2.3", "-", "+", ".", "1e", "1x", "0x10", "1_000", "--1", "3abc", "-e5"])
def test_token_starting_like_a_number_must_be_one(text: str) -> None:
    error = syntax_error(f"size {text}")
    assert error.message == f"Invalid number {text!r}."
    assert error.location == SourceLocation(F, 1, 6)


@pytest.mark.parametrize("text", ["+inf", "-inf", "+nan", "-nan", "-infinity", "1e999", "-1e400"])
def test_non_finite_numbers_are_rejected(text: str) -> None:
    error = syntax_error(f"x\n {text}")
    assert error.message.startswith(f"Invalid number {text!r}")
    assert "finite" in error.message
    assert error.location == SourceLocation(F, 2, 2)


def test_words_like_inf_and_nan_are_words_not_numbers() -> None:
    tokens = tokenize("inf nan", F)
    assert [t.kind for t in tokens[:-1]] == [TokenKind.WORD, TokenKind.WORD]


# -- words ------------------------------------------------------------------------------------------------


def test_words_keep_any_non_separator_characters() -> None:
    assert values("DEF my_robot-1 Robot USE a'b a.b") == ["DEF", "my_robot-1", "Robot", "USE", "a'b", "a.b"]
    assert all(t.kind is TokenKind.WORD for t in tokenize("DEF x TRUE NULL", F)[:-1])


def test_word_stops_at_quote_and_punctuation() -> None:
    assert values('abc"d"e{f') == ["abc", "d", "e", "{", "f"]


# -- templates --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "marker", "line", "column"),
    [("Solid {\n  %< if (x) { >%", "%<", 2, 3), ("%{ if x then }%", "%{", 1, 1), ("size %<= a >% 1 1", "%<", 1, 6),
     ("name%<= 1 >%", "%<", 1, 5), ("abc%{ x }%", "%{", 1, 4)],
)
def test_template_markers_are_procedural_proto_errors(text: str, marker: str, line: int, column: int) -> None:
    error = syntax_error(text)
    assert error.message.startswith(f"Template statement {marker!r}")
    assert "only allowed in the body of a procedural PROTO" in error.message
    assert error.location == SourceLocation(F, line, column)


def test_percent_alone_is_not_a_template() -> None:
    assert values("a% %b %") == ["a%", "%b", "%"]


def test_template_error_helper() -> None:
    error = template_error("%{", SourceLocation(F, 3, 4))
    assert isinstance(error, WorldSyntaxError)
    assert error.location == SourceLocation(F, 3, 4)


def test_token_describe() -> None:
    tokens = tokenize('} "s" word 1', F)
    assert [t.describe() for t in tokens] == ["'}'", 'string "s"', "'word'", "'1'", "end of file"]


# -- properties -------------------------------------------------------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False)


@given(st.lists(finite, min_size=1, max_size=20))
def test_numbers_round_trip(numbers: list[float]) -> None:
    text = " ".join(repr(n) for n in numbers)
    assert values(text) == numbers
    # Python writes -0.0 as "-0.0", which must keep its sign
    assert [math.copysign(1, v) for v in values(text)] == [math.copysign(1, n) for n in numbers]  # type: ignore[arg-type]


def _escape(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


@given(st.lists(st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",))), max_size=8))
def test_strings_round_trip(strings: list[str]) -> None:
    text = " ".join(_escape(s) for s in strings)
    assert values(text) == strings


separators = st.lists(st.sampled_from([" ", ",", "\t", "\n", "\r\n", "# comment { \" [\n"]), min_size=1, max_size=4)


@given(st.data())
def test_separator_placement_does_not_change_tokens(data: st.DataObject) -> None:
    pieces = ["DEF", "A", "Solid", "{", "name", '"a b,#c"', "children", "[", "]", "translation", "1", "-2.5",
              "3e2", "}"]
    text = "".join(p + "".join(data.draw(separators)) for p in pieces)
    assert [t.text for t in tokenize(text, F)[:-1]] == pieces


@given(st.data())
def test_locations_count_lines_and_columns_from_the_text(data: st.DataObject) -> None:
    # Each token's line and column, counted from the text itself: the scanner counts the newlines it skips
    # between tokens (in whitespace, commas and comments) instead of searching a table of line starts.
    pieces = data.draw(st.permutations(["DEF", "A", "Solid", "{", '"s t"', "[", "1", "-2.5", "]", "}", "é", "x"]))
    text, starts = "", []
    for piece in pieces:
        starts.append(len(text))
        text += piece + "".join(data.draw(separators)).replace("\r\n", "\n")
    tokens = tokenize(text, F)
    assert [t.text for t in tokens[:-1]] == pieces
    for token, offset in zip(tokens, [*starts, len(text)]):
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        assert token.location == SourceLocation(F, line, column)


def test_template_markers_in_strings_only_matter_in_proto_files() -> None:
    assert values('"%<= x >%" "%{ y }%"') == ["%<= x >%", "%{ y }%"]
    with pytest.raises(WorldSyntaxError) as info:
        tokenize('a "ok" "b %{ y }%"', F, proto=True)
    assert info.value.message.startswith("Template statement '%{'")
    assert info.value.location == SourceLocation(F, 1, 11)


def test_iter_tokens_is_lazy() -> None:
    tokens = iter_tokens('a b "unclosed', F)
    assert next(tokens).value == "a"
    assert next(tokens).value == "b"
    with pytest.raises(WorldSyntaxError):
        next(tokens)
