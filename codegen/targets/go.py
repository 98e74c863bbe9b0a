"""Go target: one package per schema folder, standard library only (``encoding/json``).

Files: ``<stem>.gen.go`` per schema file, ``support.gen.go`` (package doc, ``Nullable[T]``, the helpers that keep
undeclared members of open objects), ``roundtrip_test.go`` (a ``go test`` harness that decodes and re-encodes
documents found under ``$CODEGEN_ROUNDTRIP_DIR/<package>/<schema file>/``) and ``go.mod``. The package name comes
from ``--go-package`` or ``[tool.codegen.options.go] package`` (default: the schema folder's name, made an
identifier).

Mapping (see ``codegen/README.md``):

- object → struct; ``allOf`` bases are flattened into it (embedding a type with JSON methods would hide the
  outer fields); every struct has ``AdditionalProperties map[string]json.RawMessage`` (``map[string]T`` when
  ``additionalProperties`` has a schema), kept by generated ``MarshalJSON``/``UnmarshalJSON`` — closed objects
  too: ``encoding/json`` would silently drop undeclared members, and a document of a newer minor version must
  re-encode unchanged;
- required → ``T``; optional → ``*T`` with ``omitempty`` (nil = absent); required nullable → ``*T`` (nil =
  null); optional nullable → ``Nullable[T]`` with ``omitempty`` (nil = absent, ``Null()`` = null);
- string enum → ``type E string`` + typed constants (integer enums: ``int64``); other enums and every union →
  ``type U struct{ json.RawMessage }`` with ``AsX() (X, error)`` accessors and ``UFromX(X) (U, error)``
  constructors: the JSON stays exactly as read, the caller picks the branch (no guessing on decode);
- string → ``string``, integer → ``int64``, number → ``float64``, boolean → ``bool``, anything else (no type,
  tuples, ``null`` alone) → ``json.RawMessage``; a named non-object schema → a defined type.
- descriptions → doc comments; deprecations → ``// Deprecated: <canonical message>``; a header saying the file
  is generated (``// Code generated ... DO NOT EDIT.``, the form Go tools recognize).

Every named type has ``Validate() error`` (an alias, which cannot have methods: ``Validate<Name>(v) error``): the
value encoded as JSON, checked against its own schema (the bundled schema files of ``schemas.gen.go`` and the
type's JSON Pointer) by ``validate.gen.go``, a walk over the schema in the standard library. Decoding refuses what
a typed value would turn into its zero value silently: null for a struct or a defined scalar, an absent required
member, null for a member whose Go type cannot hold it.

A property name that an ``encoding/json`` struct tag cannot spell (empty, or with a comma, quote or backslash) gets
no struct field: its member stays in ``AdditionalProperties`` (raw JSON, round-tripped), said in the type's doc
comment, and the other targets still write; only where additional properties are typed (``map[string]T``, which
such a member's value may not fit) is it refused with :class:`SchemaError`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..ir import (
    IR,
    Array,
    Field,
    Literal,
    Map,
    Module,
    Named,
    NamedType,
    Never,
    Primitive,
    Tuple,
    TypeExpr,
    TypeRef,
    Union_,
    Unknown,
    pascal,
)
from ..load import SchemaError, SchemaSet
from ..render import environment
from .bundle import bundle

GO_VERSION = "1.19"  # generics, and Debian 12's golang-go
_PRIMITIVES = {"string": "string", "integer": "int64", "number": "float64", "boolean": "bool"}
_RAW = "json.RawMessage"
# predeclared identifiers and the names the support file declares
_TAKEN = frozenset(
    {"Nullable", "Value", "Null", "String", "Error", "Any", "Bool", "Int", "Float", "Byte", "Rune", "ValidationError", "Formats"}
)
_GO_KEYWORDS = frozenset(
    {
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "type",
        "var",
    }
)
_TAG_OK = re.compile(r"^[^\"\\,`\x00-\x1f]+$")


def go_string(text: str) -> str:
    """A Go interpreted string literal (JSON's escapes are a subset of Go's; non-ASCII stays as UTF-8)."""
    return json.dumps(text, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def package_name(text: str) -> str:
    name = re.sub(r"[^a-z0-9_]", "_", text.lower()).strip("_") or "schemas"
    if name[0].isdigit():
        name = "schemas_" + name
    return name + "_" if name in _GO_KEYWORDS or name == "main" else name


def exported(text: str) -> str:
    name = pascal(text)
    return name[0].upper() + name[1:]


def comment(text: str | None, indent: str = "") -> list[str]:
    if not text:
        return []
    # lines start at the margin: an indented line would be a code block to gofmt
    return [f"{indent}// {line.strip()}".rstrip() for line in text.strip().splitlines()]


@dataclass
class _Names:
    used: set[str] = field(default_factory=lambda: set(_TAKEN))

    def claim(self, wanted: str) -> str:
        name, n = wanted, 2
        while name in self.used:
            name, n = f"{wanted}{n}", n + 1
        self.used.add(name)
        return name


@dataclass
class _File:
    lines: list[str] = field(default_factory=list)
    uses_json: bool = False


class _Renderer:
    def __init__(self, ir: IR, package: str) -> None:
        self.ir = ir
        self.package = package
        self.names = _Names()
        self.type_names: dict[TypeRef, str] = {}
        stems = {m.file: m.stem for m in ir.modules}
        for module in ir.modules:  # declared names first, in file order: first come keeps its name
            for t in module.types:
                wanted = exported(t.name)
                if wanted in self.names.used:
                    wanted = exported(stems[t.file]) + wanted
                self.type_names[t.ref] = self.names.claim(wanted)
        self.out: _File = _File()
        self.extra_decls: list[list[str]] = []
        self.raw_backed: set[str] = set()  # union types: a struct embedding json.RawMessage (null is held as is)
        self.shapes = {t.ref: self._shape(t) for m in ir.modules for t in m.types}

    def _shape(self, t: NamedType, depth: int = 0) -> str:
        """How a named type holds null: "raw" (json.RawMessage or a union: the JSON as read), "nullable" (an alias
        of Nullable[T]), or "value" (a struct, a defined type: null needs a pointer or a Nullable around it)."""
        if t.kind == "enum":
            return "value" if self._literal_kind(t.values) in ("string", "int64") else "raw"
        if t.kind == "object":
            return "value"
        e = t.type
        if isinstance(e, Named) and depth < 32:
            return self._shape(self.ir.get(e.ref), depth + 1)
        if e is None or isinstance(e, (Unknown, Never, Tuple)) or (isinstance(e, Primitive) and e.name not in _PRIMITIVES):
            return "raw"
        if isinstance(e, Literal) and self._literal_kind(e.values) == _RAW:
            return "raw"
        if isinstance(e, Union_) and len([m for m in e.members if m != Primitive("null")]) > 1:
            return "raw"
        if t.nullable or (isinstance(e, Union_) and Primitive("null") in e.members):
            return "nullable"
        return "value"

    @staticmethod
    def _literal_kind(values: tuple[Any, ...]) -> str:
        if values and all(isinstance(v, str) for v in values):
            return "string"
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return "int64"
        if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            return "float64"
        if values and all(isinstance(v, bool) for v in values):
            return "bool"
        return _RAW

    # --- type expressions

    def expr(self, e: TypeExpr | None, hint: str) -> str:
        if e is None or isinstance(e, (Unknown, Never)):
            self.out.uses_json = True
            return _RAW
        if isinstance(e, Primitive):
            if e.name in _PRIMITIVES:
                return _PRIMITIVES[e.name]
            self.out.uses_json = True
            return _RAW
        if isinstance(e, Literal):
            return self._literal_base(e.values)
        if isinstance(e, Named):
            return self.type_names[e.ref]
        if isinstance(e, Array):
            return "[]" + self.expr(e.items, hint + "Item")
        if isinstance(e, Map):
            return "map[string]" + self.expr(e.values, hint + "Value")
        if isinstance(e, Tuple):
            self.out.uses_json = True
            return "[]" + _RAW
        if isinstance(e, Union_):
            members = [m for m in e.members if m != Primitive("null")]
            if len(members) == 1 and len(e.members) == 2:
                return "Nullable[" + self.expr(members[0], hint) + "]"
            name = self.names.claim(exported(hint))
            self.raw_backed.add(name)
            self.extra_decls.append(self._union(name, e, f"{name} is one of several JSON types (a union)."))
            return name
        raise TypeError(e)

    def _literal_base(self, values: tuple[Any, ...]) -> str:
        kind = self._literal_kind(values)
        if kind == _RAW:
            self.out.uses_json = True
        return kind

    # --- declarations

    def _union(self, name: str, u: Union_, doc: str, deprecation: str | None = None, description: str | None = None) -> list[str]:
        self.out.uses_json = True
        lines = comment(description) or [f"// {doc}"]
        members = [m for m in u.members if m != Primitive("null")]
        lines.append("//")
        lines.append("// It holds the JSON as read; the As methods decode it as one branch, the From functions build it.")
        lines.append("// Branches: " + ", ".join(self._branch_label(m) for m in u.members) + ".")
        if deprecation:
            lines += ["//", f"// Deprecated: {deprecation}"]
        lines += [f"type {name} struct {{", "\tjson.RawMessage", "}"]
        accessor_names = _Names(used=set())
        for i, m in enumerate(members):
            if isinstance(m, (Unknown, Never)):
                continue
            gt = self.expr(m, f"{name}Option{i + 1}")
            suffix = accessor_names.claim(self._branch_name(m, gt))
            lines += [
                "",
                f"// As{suffix} decodes the value as {gt}.",
                f"func (u {name}) As{suffix}() ({gt}, error) {{",
                f"\tvar v {gt}",
                "\terr := json.Unmarshal(u.RawMessage, &v)",
                "\treturn v, err",
                "}",
                "",
                f"// {name}From{suffix} encodes v as a {name}.",
                f"func {name}From{suffix}(v {gt}) ({name}, error) {{",
                "\traw, err := json.Marshal(v)",
                f"\treturn {name}{{raw}}, err",
                "}",
            ]
        return lines

    def _branch_label(self, m: TypeExpr) -> str:
        if isinstance(m, Primitive):
            return m.name
        if isinstance(m, Named):
            return self.type_names[m.ref]
        if isinstance(m, Literal):
            return " or ".join(json.dumps(v, ensure_ascii=False) for v in m.values)
        if isinstance(m, Array):
            return "array"
        if isinstance(m, Map):
            return "object"
        if isinstance(m, Tuple):
            return "tuple"
        return "any"

    def _branch_name(self, m: TypeExpr, gt: str) -> str:
        if isinstance(m, Named):
            return gt
        if isinstance(m, Primitive):
            return {"string": "String", "integer": "Int64", "number": "Float64", "boolean": "Bool"}.get(m.name, "Raw")
        if isinstance(m, Literal):
            return "Literal"
        if isinstance(m, Array):
            return "Array"
        if isinstance(m, Map):
            return "Map"
        return "Raw"

    def named(self, t: NamedType, module: Module) -> list[str]:
        """The declaration of ``t``, then what checks a value of it against its schema: a ``Validate`` method, or
        for an alias (which cannot have methods) a ``Validate<Name>`` function."""
        name = self.type_names[t.ref]
        lines = self._declare(t, name)
        at = f"{go_string(t.location.file)}, {go_string(t.location.pointer)}"
        where = json.dumps(f"{t.location.file}#{t.location.pointer}", ensure_ascii=False)[1:-1]  # one comment line
        if any(line.startswith(f"type {name} = ") for line in lines):
            function = self.names.claim("Validate" + name)
            check = [
                f"// {function} reports the first way v breaks its schema ({where}), or nil.",
                f"func {function}(v {name}) error {{",
                f"\treturn validateValue(v, {at})",
                "}",
            ]
        else:
            check = [
                f"// Validate reports the first way o breaks its schema ({where}), or nil.",
                f"func (o {name}) Validate() error {{",
                f"\treturn validateValue(o, {at})",
                "}",
            ]
        return [*lines, "", *check]

    def _declare(self, t: NamedType, name: str) -> list[str]:
        doc = comment(t.description) or [f"// {name} is generated from {t.location}."]
        dep = ["//", f"// Deprecated: {t.deprecation.message}"] if t.deprecation else []
        if t.kind == "object":
            return self._struct(t, name, doc + dep)
        if t.kind == "enum":
            return self._enum(t, name, doc + dep)
        expr = t.type
        if isinstance(expr, Union_) and [m for m in expr.members if m != Primitive("null")][1:]:
            self.raw_backed.add(name)
            return self._union(
                name,
                expr,
                f"{name} is one of several JSON types (a union).",
                t.deprecation.message if t.deprecation else None,
                t.description,
            )
        if isinstance(expr, Named):
            target = self.expr(expr, name)
            return doc + dep + [f"type {name} = {target}"]
        gt = self.expr(expr, name + "Value")
        if t.nullable and not gt.startswith("Nullable[") and gt != _RAW:
            gt = f"Nullable[{gt}]"
        if gt == _RAW or gt.startswith("Nullable["):
            return doc + dep + [f"type {name} = {gt}"]  # an alias keeps the JSON methods
        return doc + dep + [f"type {name} {gt}", *self._not_null(name, gt)]

    @staticmethod
    def _not_null(name: str, gt: str) -> list[str]:
        """An ``UnmarshalJSON`` refusing null for a defined scalar type: encoding/json would leave its zero value
        (a slice or a map holds null as nil, and Validate sees it)."""
        if gt not in ("string", "int64", "float64", "bool"):
            return []
        return [
            "",
            f"// UnmarshalJSON decodes a {name}, refusing null (encoding/json would leave the zero value).",
            f"func (o *{name}) UnmarshalJSON(data []byte) error {{",
            f"\ttype plain {name}",
            "\treturn decodeNotNull(data, (*plain)(o))",
            "}",
        ]

    def _enum(self, t: NamedType, name: str, doc: list[str]) -> list[str]:
        base = self._literal_base(t.values)
        if base not in ("string", "int64"):
            self.out.uses_json = True
            self.raw_backed.add(name)
            u = Union_(tuple(Literal((v,)) for v in t.values))
            return self._union(
                name,
                u,
                f"{name} is one of the values " + ", ".join(json.dumps(v) for v in t.values) + ".",
                t.deprecation.message if t.deprecation else None,
                t.description,
            )
        lines = [*doc, f"type {name} {base}"]
        if t.nullable:
            lines[-1:] = ["//", f"// null is also allowed: use Nullable[{name}] or a pointer where it may occur.", f"type {name} {base}"]
        consts = _Names(used=set(self.names.used))
        lines += ["", f"// Values of {name}.", "const ("]
        entries = []
        for v in t.values:
            label = exported(str(v)) if str(v).strip() and re.search(r"[A-Za-z0-9]", str(v)) else "Empty"
            entries.append((consts.claim(name + label), go_string(v) if isinstance(v, str) else str(v)))
        width = max(len(c) for c, _ in entries)
        lines += [f"\t{c.ljust(width)} {name} = {literal}" for c, literal in entries]  # aligned as gofmt does
        self.names.used |= consts.used
        lines.append(")")
        return [*lines, *self._not_null(name, base)]

    def _fields(self, t: NamedType) -> list[Field]:
        out: dict[str, Field] = {}
        for base in t.bases:
            for f in self._fields(self.ir.get(base)):
                out[f.name] = f
        for f in t.fields:
            out[f.name] = f
        return list(out.values())

    def _struct(self, t: NamedType, name: str, doc: list[str]) -> list[str]:
        fields = self._fields(t)
        # a name no struct tag can spell stays a member of AdditionalProperties (raw JSON, round-tripped) rather than
        # failing every target; with typed additional properties its value may not fit there, so that is refused
        untaggable = [f for f in fields if not _TAG_OK.match(f.name)] if t.additional != "typed" else []
        fields = [f for f in fields if f not in untaggable]
        if untaggable:
            doc = [
                *doc,
                *(["//"] if doc else []),
                *(
                    f"// Member {json.dumps(f.name)} is kept in AdditionalProperties: no encoding/json tag can spell its name."
                    for f in untaggable
                ),
            ]
        members = _Names(used={"AdditionalProperties", "Validate"})
        flags: dict[str, str] = {}
        lines = [*doc, f"type {name} struct {{"]
        for i, f in enumerate(fields):
            if not _TAG_OK.match(f.name):
                raise SchemaError(
                    f.location.file,
                    f.location.pointer,
                    f"the Go target cannot represent property name {f.name!r}: an encoding/json struct tag cannot spell it "
                    "(empty, or with a comma, quote, backslash or control character)",
                )
            member = members.claim(exported(f.name))
            if i:
                lines.append("")
            lines += comment(f.description, "\t")
            if f.deprecation:
                lines += (["\t//"] if f.description else []) + [f"\t// Deprecated: {f.deprecation.message}"]
            gt, omit = self._member_type(f, name)
            flags[f.name] = self._flags(f, gt)
            lines.append(f"\t{member} {gt} `json:{go_string(f.name + omit)}`")
        # a closed object keeps undeclared members too: encoding/json ignores them on decoding, and a document
        # of a newer minor version (which may add members) must not lose them when re-encoded
        extra = self.expr(t.additional_type, name + "Value") if t.additional == "typed" else _RAW
        self.out.uses_json = True
        if fields:
            lines.append("")
        if t.additional == "closed":
            lines.append("\t// AdditionalProperties holds members not declared above (the schema allows none; they are kept, not dropped).")
        else:
            lines.append("\t// AdditionalProperties holds the members not declared above.")
        lines += [f'\tAdditionalProperties map[string]{extra} `json:"-"`', "}"]
        var = name[0].lower() + name[1:] + "Declared"
        var = self.names.claim(var)
        declared = ", ".join(f"{go_string(f.name)}: {flags[f.name]}" for f in fields)
        lines += ["", f"var {var} = map[string]int{{{declared}}}", ""]
        lines += [
            f"// UnmarshalJSON decodes a {name}, keeping undeclared members in AdditionalProperties.",
            f"func (o *{name}) UnmarshalJSON(data []byte) error {{",
            f"\ttype plain {name}",
            f"\textra, err := decodeObject(data, (*plain)(o), {var})",
            "\tif err != nil {",
            "\t\treturn err",
            "\t}",
        ]
        if extra == _RAW:
            lines += ["\to.AdditionalProperties = extra", "\treturn nil", "}"]
        else:
            lines += [f"\to.AdditionalProperties, err = decodeExtra[{extra}](extra)", "\treturn err", "}"]
        lines += [
            "",
            f"// MarshalJSON encodes a {name} with its AdditionalProperties.",
            f"func (o {name}) MarshalJSON() ([]byte, error) {{",
            f"\ttype plain {name}",
        ]
        if extra == _RAW:
            lines += ["\treturn encodeObject(plain(o), o.AdditionalProperties)", "}"]
        else:
            lines += [
                "\textra, err := encodeExtra(o.AdditionalProperties)",
                "\tif err != nil {",
                "\t\treturn nil, err",
                "\t}",
                "\treturn encodeObject(plain(o), extra)",
                "}",
            ]
        return lines

    def _flags(self, f: Field, gt: str) -> str:
        """What decoding asks of a member (``decodeObject``): present if required; not null where its Go type
        ``gt`` cannot hold null (a raw or nullable one keeps it, for Validate to see)."""
        nullable = f.nullable or (isinstance(f.type, Named) and self.ir.get(f.type.ref).nullable)
        holds_null = gt == _RAW or gt in self.raw_backed or gt.startswith("Nullable[") or nullable
        if isinstance(f.type, Named) and self.shapes[f.type.ref] in ("raw", "nullable"):
            holds_null = True
        flags = (["memberRequired"] if f.required else []) + ([] if holds_null else ["memberNotNull"])
        return " | ".join(flags) or "0"

    def _member_type(self, f: Field, owner: str) -> tuple[str, str]:
        """The Go type and the tag option of a property: optional and nullable kept apart (see the module doc)."""
        gt = self.expr(f.type, owner + exported(f.name))
        shape = (
            self.shapes[f.type.ref]
            if isinstance(f.type, Named)
            else "raw"
            if gt == _RAW or gt in self.raw_backed
            else "nullable"
            if gt.startswith("Nullable[")
            else "value"
        )
        nullable = f.nullable or (isinstance(f.type, Named) and self.ir.get(f.type.ref).nullable)
        omit = "" if f.required else ",omitempty"
        if gt == _RAW or shape == "nullable":
            return gt, omit  # absent: empty / nil map; null: held as is
        if shape == "raw":  # a union: null is held in its JSON; an optional one needs a pointer (or Nullable)
            return (gt, "") if f.required else ((f"Nullable[{gt}]" if nullable else "*" + gt), omit)
        if nullable:
            return (f"*{gt}", "") if f.required else (f"Nullable[{gt}]", omit)
        return (gt, "") if f.required else ("*" + gt, omit)

    def module(self, module: Module) -> str:
        self.out = _File()
        blocks: list[list[str]] = []
        for t in module.types:
            self.extra_decls = []
            blocks.append(self.named(t, module))
            blocks.extend(self.extra_decls)
        head = [f"// Code generated by codegen from {module.file}; DO NOT EDIT.", "", f"package {self.package}"]
        body = "\n\n".join("\n".join(b) for b in blocks)
        # imported when the code written uses it: a type marked as using JSON may have become support calls only
        # (an object whose extra members are typed), and Go refuses an unused import
        if self.out.uses_json and re.search(r"\bjson\.", body):
            head += ["", 'import "encoding/json"']
        return "\n".join(head) + ("\n\n" + body if body else "") + "\n"


def file_name(stem: str) -> str:
    return ("schema" + stem if stem.startswith("_") else stem) + ".gen.go"


def _bundles(schemas: SchemaSet, package: str, files: str) -> str:
    """Every schema file bundled (each file it reaches embedded, every ``$ref`` local): what ``Validate`` reads."""
    # entries apart by a blank line: gofmt aligns the values of consecutive lines only
    entries = "\n".join(
        f"\t{go_string(f.name)}: {go_string(json.dumps(bundle(schemas, f.name), ensure_ascii=False, separators=(',', ':')))},\n"
        for f in sorted(schemas.files, key=lambda f: f.name)
    )
    return (
        f"// Code generated by codegen from {files}; DO NOT EDIT.\n\npackage {package}\n\n"
        f"// bundles holds every schema file as JSON text, bundled: what Validate checks values against.\n"
        f"var bundles = map[string]string{{\n{entries}}}\n"
    )


def render(ir: IR, schemas: SchemaSet, options: dict[str, Any] | None = None) -> dict[str, bytes]:
    package = package_name(str((options or {}).get("package") or schemas.root.resolve().name))
    r = _Renderer(ir, package)
    out: dict[str, bytes] = {}
    for module in ir.modules:
        out[file_name(module.stem)] = r.module(module).encode("utf-8")
    env = environment("go", {"go_string": go_string})
    files = ", ".join(m.file for m in ir.modules)
    out["support.gen.go"] = env.get_template("support.go.j2").render(package=package, files=files).encode("utf-8")
    out["validate.gen.go"] = env.get_template("validate.go.j2").render(package=package, files=files).encode("utf-8")
    out["formats.gen.go"] = env.get_template("formats.go.j2").render(package=package, files=files).encode("utf-8")
    out["schemas.gen.go"] = _bundles(schemas, package, files).encode("utf-8")
    roots = [(m.file, r.type_names[TypeRef(m.file, m.root)]) for m in ir.modules if m.root is not None]
    out["roundtrip_test.go"] = env.get_template("roundtrip_test.go.j2").render(package=package, files=files, roots=roots).encode("utf-8")
    out["go.mod"] = f"// Code generated by codegen from {files}; DO NOT EDIT.\n\nmodule {package}\n\ngo {GO_VERSION}\n".encode()
    return out
