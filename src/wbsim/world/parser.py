"""Parser for world (``.wbt``) and PROTO (``.proto``) files, producing :mod:`wbsim.world.syntax` records.

Grammar (as implemented by Webots' parser)::

    world     := { ["IMPORTABLE"] "EXTERNPROTO" STRING } { node }
    node      := "USE" ID | ["DEF" ID] TypeName "{" { fieldEntry } "}"
    fieldEntry:= fieldName ( "IS" ID | value ) | "hidden" fieldName value
    value     := "[" { item } "]" | "NULL" | node | literal { literal }
    proto     := { ["IMPORTABLE"] "EXTERNPROTO" STRING } "PROTO" ID "[" { fieldDecl } "]" "{" node "}"
    fieldDecl := declKeyword Type [ "{" { item } "}" ] ID value

The parser is schema-free: it does not know field types, so a bare value is the run of literals up to
the next word. :mod:`wbsim.world.checker` applies the types.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from wbsim.errors import SourceLocation, WorldSyntaxError
from wbsim.world.lexer import TEMPLATE_MARKER_RE, Token, TokenKind, read_header, scan_tokens
from wbsim.world.syntax import (
    Atom,
    ExternProto,
    FieldSyntax,
    IsSyntax,
    Item,
    NodeSyntax,
    NullSyntax,
    ProtoFieldDecl,
    ProtoSyntax,
    ProtoTemplate,
    UseSyntax,
    ValueSyntax,
    WorldSyntax,
)

__all__ = ["parse_world", "parse_proto", "parse_generated_proto", "FIELD_TYPE_NAMES", "is_identifier",
           "MAX_NODE_DEPTH"]

FIELD_TYPE_NAMES = frozenset(
    prefix + base
    for prefix in ("SF", "MF")
    for base in ("Bool", "Int32", "Float", "String", "Vec2f", "Vec3f", "Color", "Rotation", "Node")
)
_DECL_KEYWORDS = frozenset(
    {"field", "vrmlField", "hiddenField", "deprecatedField", "unconnectedField", "w3dField"}
)
_KEYWORDS = (
    _DECL_KEYWORDS
    | FIELD_TYPE_NAMES
    | {"DEF", "USE", "PROTO", "EXTERNPROTO", "IMPORTABLE", "IS", "TRUE", "FALSE", "NULL"}
    | {"ROUTE", "TO", "eventIn", "eventOut", "exposedField", "MFTime", "SFImage", "SFTime"}
)
# The characters an identifier may hold: above 0x20 and none of " # ' , . [ \ ] { } (one C-level match, not a
# Python loop per character; a test checks it against these two rules).
_IDENTIFIER_CHARS_RE = re.compile(r"[^\x00-\x20\"#',.\[\\\]{}]+")
# Module constants: an enum member lookup costs a descriptor call.
_EOF, _WORD, _NUMBER, _STRING = TokenKind.EOF, TokenKind.WORD, TokenKind.NUMBER, TokenKind.STRING
_LBRACE, _RBRACE, _LBRACKET, _RBRACKET = TokenKind.LBRACE, TokenKind.RBRACE, TokenKind.LBRACKET, TokenKind.RBRACKET
# Syntax records are named tuples; made with tuple.__new__ directly in the per-token paths (their own
# __new__ is a Python function, a frame more per record). The records are the same.
_new = tuple.__new__


def is_identifier(text: str) -> bool:
    """True if ``text`` is a legal VRML97 identifier that is not a keyword."""
    if not text or text in _KEYWORDS or text[0].isdigit():
        return False
    return _IDENTIFIER_CHARS_RE.fullmatch(text) is not None


MAX_NODE_DEPTH = 3000
"""Deepest node nesting accepted: parsing, checking and compiling recurse a few frames per level."""


class _Parser:
    """Recursive-descent parser over a token list; one instance per file."""

    def __init__(self, text: str, file: str, *, in_proto: bool) -> None:
        self.file = file
        self.header = read_header(text, file)
        # The tokens before the first lexical error, if any; the error is raised when the parser reaches it,
        # so that it is reported with the node path it occurs in.
        self.tokens, self._lexical_error = scan_tokens(text, file, proto=in_proto)
        self.pos = 0
        self.in_proto = in_proto
        # DEF scope is one file; a USE refers to the closest preceding DEF of that name.
        self.defs: dict[str, NodeSyntax] = {}
        # Where the parser is, in the checker's node-path format: ['Robot "r"', 'children[2]', 'HingeJoint'].
        self.path: list[str] = []
        self.depth = 0  # nodes open around the parser's position

    # -- token helpers -------------------------------------------------------------------------
    def peek(self, ahead: int = 0) -> Token:
        index = self.pos + ahead
        tokens = self.tokens
        if index < len(tokens):  # the common case (peek runs a few times per token)
            return tokens[index]
        error = self._lexical_error
        if error is not None:
            raise WorldSyntaxError(error.message, error.location, self.node_path())
        return tokens[-1]  # the end of the file

    def next(self) -> Token:
        token = self.peek()
        if token.kind is not _EOF:
            self.pos += 1
        return token

    def node_path(self) -> str:
        """The current node path, e.g. ``Robot "rover" > children[2] > HingeJoint > endPoint``."""
        return " > ".join(self.path)

    def error(self, message: str, token: Token) -> WorldSyntaxError:
        return WorldSyntaxError(message, token.location, self.node_path())

    def expect(self, kind: TokenKind, what: str) -> Token:
        token = self.next()
        if token.kind is not kind:
            raise self.error(f"Expected {what}, found {token.describe()}.", token)
        return token

    def expect_identifier(self, what: str) -> Token:
        token = self.next()
        if token.kind is not _WORD or not is_identifier(token.text):
            raise self.error(f"Expected {what} (an identifier), found {token.describe()}.", token)
        return token

    def at_word(self, text: str) -> bool:
        token = self.peek()
        return token.kind is _WORD and token.text == text

    # -- grammar ------------------------------------------------------------------------------------
    def externprotos(self) -> list[ExternProto]:
        result = []
        while self.at_word("EXTERNPROTO") or (self.at_word("IMPORTABLE") and self.peek(1).text == "EXTERNPROTO"):
            if self.at_word("IMPORTABLE"):
                self.next()
            self.next()
            url = self.expect(TokenKind.STRING, "the URL of the PROTO file after EXTERNPROTO")
            assert isinstance(url.value, str)
            if not url.value.lower().endswith(".proto"):
                raise self.error(f"Expected URL to end with '.proto' or '.PROTO', found {url.text}.", url)
            name = PurePosixPath(url.value.replace("\\", "/")).stem
            result.append(ExternProto(url=url.value, name=name, location=url.location))
        return result

    def node(self) -> NodeSyntax | UseSyntax:
        token = self.peek()
        keyword = token.text if token.kind is _WORD else None  # USE or DEF, read once
        if keyword == "USE":
            self.next()
            name = self.expect_identifier("a DEF name after USE")
            target = self.defs.get(name.text)
            if target is None:
                known = ", ".join(sorted(self.defs)) or "none"
                raise self.error(
                    f"USE {name.text}: no node was defined with DEF {name.text} before this point "
                    f"(DEF names defined so far: {known}).",
                    name,
                )
            return UseSyntax(name=name.text, target=target, location=token.location)
        def_name = None
        if keyword == "DEF":
            self.next()
            def_name = self.expect_identifier("a name after DEF").text
        type_token = self.expect_identifier("a node type name")
        label = f"DEF {def_name} {type_token.text}" if def_name else type_token.text
        self.path.append(label)
        self.depth += 1
        if self.depth > MAX_NODE_DEPTH:
            raise self.error(
                f"Nodes are nested more than {MAX_NODE_DEPTH} levels deep here, wbsim's limit (MuJoCo itself "
                "accepts bodies at most about 1000 levels deep).", type_token)
        if self.peek().kind is not _LBRACE:  # (the message formatted only for the error)
            self.expect(_LBRACE, f"'{{' after node type {type_token.text}")
        self.pos += 1
        node = NodeSyntax(type_name=type_token.text, location=type_token.location, def_name=def_name)
        tokens = self.tokens
        while True:
            pos = self.pos  # peek(), inline: the common case of a token in the list
            token = tokens[pos] if pos < len(tokens) else self.peek()
            if token.kind is _RBRACE:
                self.pos += 1
                break
            if token.kind is _EOF:
                raise self.error(
                    f"Missing '}}' to close node {type_token.text} opened at line {type_token.location.line}.",
                    token,
                )
            entry = self.field_entry(type_token.text, node)
            if entry is not None:
                node.fields.append(entry)
                value = entry.value
                if (entry.name == "name" and isinstance(value, ValueSyntax) and len(value.items) == 1
                        and isinstance(value.items[0], Atom) and value.items[0].kind == "string"):
                    self.path[-1] = f'{type_token.text} "{value.items[0].value}"'  # as the checker labels it
        self.path.pop()
        self.depth -= 1
        if def_name is not None:
            self.defs[def_name] = node
        return node

    def field_entry(self, node_type: str, node: NodeSyntax) -> FieldSyntax | None:
        """One field entry; a ``hidden`` entry is added to ``node.hidden`` and gives None."""
        tokens = self.tokens
        pos = self.pos  # next(), inline for the common case: a token in the list that is not the end of file
        token = tokens[pos] if pos < len(tokens) else self.peek()
        if token.kind is not _EOF:
            self.pos = pos + 1
        if token.kind is not _WORD:
            raise self.error(f"Expected a field name or '}}' in node {node_type}, found {token.describe()}.", token)
        if token.text == "hidden":
            # Webots saves the state of a PROTO instance's inner nodes as hidden fields (applied by the checker).
            name = self.expect(TokenKind.WORD, "a field name after 'hidden'")
            self.path.append(name.text)
            value = self.value(f"hidden field of {node_type}")
            self.path.pop()
            node.hidden.append(FieldSyntax(name.text, value, name.location))
            return None
        if not is_identifier(token.text):
            raise self.error(f"Expected a field name or '}}' in node {node_type}, found {token.describe()}.", token)
        self.path.append(token.text)
        pos = self.pos
        after = tokens[pos] if pos < len(tokens) else self.peek()
        if after.kind is _WORD and after.text == "IS":
            is_token = self.next()
            if not self.in_proto:
                raise self.error("'IS' keyword is only allowed in .proto files.", is_token)
            target = self.expect_identifier("a PROTO field name after IS")
            entry = FieldSyntax(token.text, IsSyntax(target.text, target.location), token.location)
        else:
            # What the value is for, named only in an error (formatting it for every field cost time).
            value = self.value(None, token.text, node_type)
            entry = _new(FieldSyntax, (token.text, value, token.location))
        self.path.pop()
        return entry

    def item(self) -> Item | None:
        """One SF item: a literal, NULL, a node or a USE; None if the next token starts none of these."""
        tokens, pos = self.tokens, self.pos
        token = tokens[pos] if pos < len(tokens) else self.peek()
        kind = token.kind
        if kind is _NUMBER:
            self.pos = pos + 1
            return _new(Atom, ("number", token.value, token.location))
        if kind is _STRING:
            self.pos = pos + 1
            return _new(Atom, ("string", token.value, token.location))
        if kind is _WORD:
            text = token.text
            if text == "TRUE" or text == "FALSE":
                self.pos = pos + 1
                return _new(Atom, ("bool", text == "TRUE", token.location))
            if text == "NULL":
                self.pos += 1
                return NullSyntax(token.location)
            if text == "DEF" or text == "USE" or self.peek(1).kind is _LBRACE:
                return self.node()
        return None

    def value(self, what: str | None, field_name: str = "", node_type: str = "") -> ValueSyntax:
        """A field value; ``what`` names it in errors (None: ``field '<field_name>' of <node_type>``)."""
        tokens, pos = self.tokens, self.pos
        start = tokens[pos] if pos < len(tokens) else self.peek()
        if start.kind is _LBRACKET:
            self.pos += 1
            items: list[Item] = []
            path = self.path
            segment = path[-1] if path else ""
            while True:
                if path:
                    path[-1] = f"{segment}[{len(items)}]"  # name the list item, like the checker
                token = self.peek()
                if token.kind is _RBRACKET:
                    self.pos += 1
                    if path:
                        path[-1] = segment
                    return ValueSyntax(tuple(items), True, start.location)
                item = self.item()
                if item is None:
                    what = what if what is not None else f"field '{field_name}' of {node_type}"
                    if token.kind is _EOF:
                        raise self.error(
                            f"Missing ']' to close the list of {what} opened at line {start.location.line}.", token
                        )
                    raise self.error(f"Unexpected {token.describe()} in the list of {what}.", token)
                items.append(item)
        first = self.item()
        if first is None:
            what = what if what is not None else f"field '{field_name}' of {node_type}"
            raise self.error(f"Expected a value for {what}, found {start.describe()}.", start)
        if not isinstance(first, Atom):
            return _new(ValueSyntax, ((first,), False, start.location))
        atoms: list[Item] = [first]
        pos, end = self.pos, len(tokens)
        while True:  # a run of literals (what item() reads of them, inline: a large world has many)
            if pos == end:  # past the tokens before a lexical error: peek() raises it
                self.pos = pos
                token = self.peek()
            else:
                token = tokens[pos]
            kind = token.kind
            if kind is _NUMBER:
                atoms.append(_new(Atom, ("number", token.value, token.location)))
            elif kind is _STRING:
                atoms.append(_new(Atom, ("string", token.value, token.location)))
            elif kind is _WORD and (token.text == "TRUE" or token.text == "FALSE"):
                atoms.append(_new(Atom, ("bool", token.text == "TRUE", token.location)))
            else:
                self.pos = pos
                return _new(ValueSyntax, (tuple(atoms), False, start.location))
            pos += 1

    def world(self) -> WorldSyntax:
        externs = self.externprotos()
        nodes: list[NodeSyntax | UseSyntax] = []
        while self.peek().kind is not TokenKind.EOF:
            token = self.peek()
            if self.at_word("IMPORTABLE") and self.peek(1).text != "EXTERNPROTO":
                after = self.peek(1)
                raise self.error(f"Expected EXTERNPROTO after IMPORTABLE, found {after.describe()}.", after)
            if self.at_word("EXTERNPROTO") or self.at_word("IMPORTABLE"):
                externs.extend(self.externprotos())
                continue
            if self.at_word("PROTO"):
                raise self.error("PROTO definitions belong in .proto files, not in worlds.", token)
            if token.kind is not TokenKind.WORD:
                raise self.error(f"Expected a node, found {token.describe()}.", token)
            nodes.append(self.node())
        return WorldSyntax(self.file, self.header.version, tuple(externs), tuple(nodes))

    def interface(self) -> tuple[list[ExternProto], Token, list[ProtoFieldDecl], Token]:
        """EXTERNPROTOs, ``PROTO Name [ fields ]`` and the body's ``{``: (externs, name, decls, brace)."""
        externs = self.externprotos()
        keyword = self.next()
        if keyword.kind is not TokenKind.WORD or keyword.text != "PROTO":
            raise self.error(f"Expected 'PROTO', found {keyword.describe()}.", keyword)
        name = self.expect_identifier("the PROTO name")
        self.path.append(f"PROTO {name.text}")
        self.expect(TokenKind.LBRACKET, f"'[' to open the interface of PROTO {name.text}")
        decls: list[ProtoFieldDecl] = []
        seen: set[str] = set()
        while self.peek().kind is not TokenKind.RBRACKET:
            kw = self.next()
            if kw.kind is not TokenKind.WORD or kw.text not in _DECL_KEYWORDS:
                raise self.error(
                    f"Expected a field declaration ({', '.join(sorted(_DECL_KEYWORDS))}) or ']', "
                    f"found {kw.describe()}.",
                    kw,
                )
            type_token = self.next()
            if type_token.text not in FIELD_TYPE_NAMES:
                raise self.error(
                    f"Unknown field type {type_token.describe()}: expected one of {', '.join(sorted(FIELD_TYPE_NAMES))}.",
                    type_token,
                )
            accepted: tuple[Item, ...] | None = None
            if self.peek().kind is TokenKind.LBRACE:
                open_brace = self.next()
                values: list[Item] = []
                while self.peek().kind is not TokenKind.RBRACE:
                    item = self.item()
                    if item is None:
                        token = self.peek()
                        if token.kind is TokenKind.EOF:
                            raise self.error(
                                f"Missing '}}' after the accepted values opened at line {open_brace.location.line}.",
                                token,
                            )
                        raise self.error(f"Unexpected {token.describe()} in accepted values.", token)
                    values.append(item)
                self.next()
                accepted = tuple(values)
            field_name = self.expect_identifier("a field name")
            if field_name.text in seen:
                raise self.error(f"Duplicate field '{field_name.text}' in PROTO {name.text}.", field_name)
            seen.add(field_name.text)
            self.path.append(field_name.text)
            default = self.value(f"the default of field '{field_name.text}'")
            self.path.pop()
            decls.append(
                ProtoFieldDecl(kw.text, type_token.text, field_name.text, default, accepted, field_name.location)
            )
        self.next()
        brace = self.expect(TokenKind.LBRACE, f"'{{' to open the body of PROTO {name.text}")
        return externs, name, decls, brace

    def proto(self) -> ProtoSyntax:
        externs, name, decls, _ = self.interface()
        body = self.node()
        if isinstance(body, UseSyntax):
            raise WorldSyntaxError("The body of a PROTO must be a node, not USE.", body.location)
        while self.peek().kind is not TokenKind.RBRACE:
            token = self.peek()
            if token.kind is TokenKind.EOF:
                raise self.error(f"Missing '}}' to close the body of PROTO {name.text}.", token)
            # Webots allows only one root node; extra nodes are a mistake worth reporting.
            raise self.error(f"A PROTO body has exactly one root node; found {token.describe()}.", token)
        self.next()
        trailing = self.peek()
        if trailing.kind is not TokenKind.EOF:
            raise self.error(f"Unexpected {trailing.describe()} after the PROTO definition.", trailing)
        return ProtoSyntax(name.text, tuple(decls), body, tuple(externs), self.file, name.location)

    def procedural(self, text: str) -> ProtoSyntax:
        """A procedural PROTO: the interface parsed, the body kept as a template (see ``ProtoTemplate``)."""
        externs, name, decls, brace = self.interface()
        offset = _offset_of(text, brace.location.line, brace.location.column) + 1
        end = text.rfind("}")
        if end < offset:
            raise self.error(f"Missing '}}' to close the body of PROTO {name.text}.", brace)
        content = text[offset:end]
        lua = _LUA_MARKER_RE.search(content)
        if lua is not None or _header_comment(text, "template language") == "lua":
            where = lua.start() if lua is not None else 0
            line, column = _line_column(text, offset + where)
            raise WorldSyntaxError(
                f"PROTO {name.text} uses a Lua template ('%{{ }}%'): Lua templates are not supported; this PROTO "
                "predates Webots R2022a (use its JavaScript version from a newer Webots release).",
                SourceLocation(self.file, line, column),
                f"PROTO {name.text}",
            )
        # The root type is the first word outside template statements (after a DEF name), as Webots reads it.
        plain = _TEMPLATE_STATEMENT_RE.sub(lambda m: " " * len(m.group()), content)
        words = list(_WORD_RE.finditer(plain))
        root = words[0] if words else None
        if root is not None and root.group() == "DEF" and len(words) > 2:
            root = words[2]
        if root is None or not is_identifier(root.group()):
            raise self.error(f"Cannot find the root node type of procedural PROTO {name.text}.", brace)
        line, column = _line_column(text, offset + root.start())
        body = NodeSyntax(type_name=root.group(), location=SourceLocation(self.file, line, column))
        tags = {t.strip() for t in (_header_comment(text, "tags") or "").split(",")}
        statements = " ".join(m.group() for m in _TEMPLATE_STATEMENT_RE.finditer(content))
        names = [d.name for d in decls]
        if "indirectFieldAccess" in tags:
            regenerators = frozenset(names)
        else:
            regenerators = frozenset(
                n for n in names if re.search(rf"(^|\W)fields\.{re.escape(n)}($|\W)", statements)
            )
        content_line, content_column = _line_column(text, offset)
        template = ProtoTemplate(
            content=content, line=content_line, column=content_column, text=text, offset=offset,
            regenerators=regenerators, deterministic="nonDeterministic" not in tags,
            interface_defs=tuple(self.defs.items()),
        )
        return ProtoSyntax(name.text, tuple(decls), body, tuple(externs), self.file, name.location, template)


_LUA_MARKER_RE = re.compile(r"%\{")
_TEMPLATE_STATEMENT_RE = re.compile(r"%<.*?>%", re.DOTALL)
_WORD_RE = re.compile(r"[^\s,{}\[\]\"#]+")


def _offset_of(text: str, line: int, column: int) -> int:
    """The character offset of a 1-based (line, column) position."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column - 1


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of a character offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _header_comment(text: str, key: str) -> str | None:
    """The value of a ``# key: value`` comment line in the file's leading comments, or None."""
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if not line.startswith("#"):
            return None
        body = line[1:].strip()
        if body.startswith(key + ":"):
            return body[len(key) + 1:].strip()
    return None


def parse_world(text: str, file: str) -> WorldSyntax:
    """Parse the text of a ``.wbt`` world file.

    Args:
        text: the file content.
        file: the file name used in error messages and locations.

    Raises:
        WorldSyntaxError: at the first syntax error, located at file:line:column and, inside a node,
            with the node path (e.g. ``Robot "rover" > children[2] > HingeJoint > endPoint``).
    """
    return _Parser(text, file, in_proto=False).world()


def parse_proto(text: str, file: str) -> ProtoSyntax:
    """Parse the text of a ``.proto`` file.

    A procedural PROTO (JavaScript template statements ``%< >%`` after the interface) is returned with its
    interface parsed and its body kept as a :class:`~wbsim.world.syntax.ProtoTemplate`, expanded per
    instance by :mod:`wbsim.world.templates`.

    Raises:
        WorldSyntaxError: at the first syntax error (with the node path, starting ``PROTO Name``), or at a
            Lua template (``%{``), which wbsim does not evaluate.
    """
    if TEMPLATE_MARKER_RE.search(text) is not None:
        return _Parser(text, file, in_proto=True).procedural(text)
    return _Parser(text, file, in_proto=True).proto()



def parse_generated_proto(proto: ProtoSyntax, body_text: str) -> ProtoSyntax:
    """The concrete PROTO of a procedural one whose body template generated ``body_text``.

    The interface is not parsed again; the generated text is taken literally (never as a template) and
    placed where the template starts in the file, so its first lines keep the file's line numbers.

    Raises:
        WorldSyntaxError: as :func:`parse_proto` (lines count from the start of the template).
    """
    template = proto.template
    assert template is not None, "for procedural PROTOs"
    first_line = template.text.split("\n", 1)[0]
    padded = first_line + "\n" * (template.line - 1) + " " * (template.column - 1) + body_text
    parser = _Parser(padded, proto.file, in_proto=True)
    parser.defs = dict(template.interface_defs)
    parser.path = [f"PROTO {proto.name}"]
    body = parser.node()
    if isinstance(body, UseSyntax):
        raise WorldSyntaxError("The body of a PROTO must be a node, not USE.", body.location)
    trailing = parser.peek()
    if trailing.kind is not TokenKind.EOF:
        raise parser.error(f"A PROTO body has exactly one root node; found {trailing.describe()}.", trailing)
    return ProtoSyntax(proto.name, proto.fields, body, proto.externprotos, proto.file, proto.location)
