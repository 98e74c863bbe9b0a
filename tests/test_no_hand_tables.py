"""No data table is written by hand in either SDK: a literal collection (list, tuple, set, dict, array, object) that
names two or more ledger rule codes, or three or more document kinds, is a table that belongs in spec/ (the ledger,
spec/constants.json) or the schemas, generated into the SDKs by codegen. Algorithms may name a code or a kind; only
tables are refused."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODES = {rule["id"] for rule in json.loads((ROOT / "spec" / "ledger.json").read_text(encoding="utf-8"))["rules"]}
KINDS = set(json.loads((ROOT / "spec" / "constants.json").read_text(encoding="utf-8"))["constants"]["KINDS"]["value"])


def _names(nodes: list[ast.expr | None]) -> list[str]:
    """The codes and kinds the elements name: string literals, and ``codes.X`` attributes."""
    out = []
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "codes":
            out.append(node.attr)
    return out


def _is_table(names: list[str]) -> bool:
    return len(set(names) & CODES) >= 2 or len(set(names) & KINDS) >= 3


def python_tables(source: str) -> list[int]:
    """Line numbers of the literal tables in a Python module."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            elements: list[ast.expr | None] = list(node.elts)
        elif isinstance(node, ast.Dict):
            if node.values and all(isinstance(v, ast.Name) for v in node.values):
                continue  # a dispatch to functions (kind → its rules) is code, not data
            elements = [*node.keys, *node.values]
        else:
            continue
        if _is_table(_names(elements)):
            lines.append(node.lineno)
    return lines


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_INNERMOST = re.compile(r"[\[{]([^\[\]{}]*)[\]}]")


def typescript_tables(source: str) -> list[int]:
    """Line numbers of the literal tables (innermost ``[...]`` and ``{...}``) in a TypeScript module."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    lines = []
    for match in _INNERMOST.finditer(text):
        body = match.group(1)
        names = re.findall(r"\bcodes\.([A-Z][A-Z0-9_]*)", body) + re.findall(r"[\"'`]([A-Za-z][A-Za-z0-9_]*)[\"'`]", body)
        if _is_table(names) and not body.lstrip().startswith(("const ", "let ", "return ", "if ")):
            lines.append(text.count("\n", 0, match.start()) + 1)
    return lines


def test_no_hand_written_table_in_the_python_sdk() -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "evalschema").rglob("*.py"))
        for line in python_tables(path.read_text(encoding="utf-8"))
    ]
    assert hits == [], "literal tables of rule codes or kinds (generate them from spec/ instead)"


def test_no_hand_written_table_in_the_typescript_sdk() -> None:
    sources = sorted(p for p in (ROOT / "js" / "src").rglob("*.ts") if "generated" not in p.relative_to(ROOT / "js" / "src").parts)
    hits = [f"{path.relative_to(ROOT)}:{line}" for path in sources for line in typescript_tables(path.read_text(encoding="utf-8"))]
    assert hits == [], "literal tables of rule codes or kinds (generate them from spec/ instead)"


def test_the_scan_finds_a_table() -> None:
    """The scans are able to fail: each finds the tables these SDKs used to hold."""
    assert python_tables(
        'X = frozenset({"FILE_UNREADABLE", "INVALID_JSON"})\nY = {"type": codes.TYPE_MISMATCH, "required": codes.REQUIRED_FIELD}'
    )
    assert python_tables('KINDS = ("testcase", "grader", "suite", "resultset", "pack")')
    assert typescript_tables("export const K = {\n  type: codes.TYPE_MISMATCH,\n  required: codes.REQUIRED_FIELD,\n};")
    assert typescript_tables('export const KINDS = ["testcase", "grader", "suite", "resultset", "pack"] as const;')
    assert not python_tables('raise Problem(codes.INVALID_JSON, "nested too deep")')
    assert not python_tables('RULES = {"grader": grader_rules, "suite": suite_rules, "pack": pack_rules}')


# --- the values of spec/constants.json, written again by hand -------------------------------------------------------

CONSTANTS = {
    name: entry["value"] for name, entry in json.loads((ROOT / "spec" / "constants.json").read_text(encoding="utf-8"))["constants"].items()
}


def _same(a: object, b: object) -> bool:
    """JSON equality: ``True`` is not ``1``, ``1`` is ``1.0``, tuples are lists."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


# Names the SDKs gave these constants before spec/constants.json held them.
FORMER_NAMES = {
    "VALUE_LIMIT": "MESSAGE_VALUE_CHARS",
    "SUGGESTIONS": "MAX_SUGGESTIONS",
    "CUTOFF": "SUGGESTION_CUTOFF",
    "SUFFIXES": "INPUT_SUFFIXES",
}


def _restated(name: str, value: object) -> str | None:
    """The constant of spec/constants.json that a module-level ``NAME = value`` restates: the same name (or a former
    one), or the same value when it says something by itself: a non-empty string, a fraction, a list or an object
    (a whole number such as 1000 is also a batch size or a depth: those are matched by name only)."""
    if name in CONSTANTS or name in FORMER_NAMES:
        return FORMER_NAMES.get(name, name)
    if isinstance(value, (set, frozenset)):  # a set restates a list of the same members
        value = sorted(value, key=repr)
        return next((f"{c}{at}" for c, at, known in _PARTS if isinstance(known, list) and _same(value, sorted(known, key=repr))), None)
    if not (isinstance(value, (str, float, list, tuple, dict)) and value != ""):
        return None
    # a fraction such as 1.0 restates no whole-number constant (an exit status, a depth): those match by name only
    return next((f"{c}{at}" for c, at, known in _PARTS if not isinstance(known, int) and _same(value, known)), None)


# Each constant's value, and each member of an object-valued one (a part of a table restated is a restatement too).
_PARTS = [(name, "", value) for name, value in CONSTANTS.items()] + [
    (name, f"[{key!r}]", part) for name, value in CONSTANTS.items() if isinstance(value, dict) for key, part in value.items()
]


def _literal(node: ast.expr) -> object:
    """A literal's value; ``frozenset({...})``, ``set([...])``, ``tuple(...)`` of a literal too. Raises ValueError."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set") and len(node.args) == 1:
        return frozenset(ast.literal_eval(node.args[0]))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "tuple" and len(node.args) == 1:
        return tuple(ast.literal_eval(node.args[0]))
    return ast.literal_eval(node)


# Python-only commands with exit statuses of their own (SPEC §12, §13 and `migrate`): their ``EXIT_OK`` is theirs,
# not the validate/summarize contract's that EXIT_OK, EXIT_INVALID and EXIT_UNREADABLE of spec/constants.json state.
OWN_EXIT_STATUSES = ("evalschema/cli/comparecmd.py", "evalschema/cli/diffcmd.py", "evalschema/cli/interopcmd.py", "evalschema/migrate.py")


def _assigned(node: ast.stmt) -> list[tuple[ast.expr, ast.expr]]:
    """The (target, value) pairs of a module-level assignment: ``A = 1``, ``A: int = 1`` and ``A, B = 1, 2``."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            return list(zip(target.elts, value.elts, strict=True))
        return [(target, value)]
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [(node.target, node.value)]
    return []


def python_constants(source: str) -> list[str]:
    """``line: NAME`` of each module-level assignment of a literal that restates a constant of spec/constants.json."""
    hits = []
    for node in ast.parse(source).body:
        for target, value in _assigned(node):
            if not isinstance(target, ast.Name) or not target.id.lstrip("_").isupper():
                continue
            try:
                literal = _literal(value)
            except ValueError:
                continue  # not a literal: an import, a call, another name
            constant = _restated(target.id, literal)
            if constant is not None:
                hits.append(f"{node.lineno}: {target.id} restates {constant}")
    return hits


_TS_CONST = re.compile(r"^(?:export\s+)?const\s+([A-Z_][A-Z0-9_]*)\s*(?::[^=]+)?=\s*(.+?);?\s*\Z", re.DOTALL)


def _ts_literal(text: str) -> object:
    """A TypeScript literal (number, string, array, object with bare or quoted keys, ``as const``, ``new Set([…])``)
    as JSON (a set as a frozenset), or raise."""
    text = re.sub(r"\s+as\s+const\s*$", "", text.strip().rstrip(";"))
    inner = re.fullmatch(r"new\s+Set\((.*)\)", text, re.DOTALL)
    if inner is not None:
        members = _ts_literal(inner.group(1))
        if not isinstance(members, list):
            raise ValueError("not a set of literals")
        return frozenset(members)
    text = re.sub(r"(?<=[{,])\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*:", r'"\1":', text)
    text = re.sub(r",\s*([}\]])", r"\1", text)
    return json.loads(text)


def typescript_constants(source: str) -> list[str]:
    """``line: NAME`` of each top-level ``const NAME = literal`` that restates a constant of spec/constants.json."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    hits = []
    # top-level statements: a line that starts a const, up to the next line that starts with no indentation
    for match in re.finditer(r"^(?:export\s+)?const\s[^\n]*(?:\n[ \t}\]][^\n]*)*", text, re.MULTILINE):
        statement = _TS_CONST.match(match.group())
        if statement is None:
            continue
        try:
            literal = _ts_literal(statement.group(2))
        except ValueError:
            continue
        constant = _restated(statement.group(1), literal)
        if constant is not None:
            hits.append(f"{text.count(chr(10), 0, match.start()) + 1}: {statement.group(1)} restates {constant}")
    return hits


def test_no_constant_restated_in_the_python_sdk() -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{hit}"
        for path in sorted((ROOT / "evalschema").rglob("*.py"))
        for hit in python_constants(path.read_text(encoding="utf-8"))
        if not (str(path.relative_to(ROOT)) in OWN_EXIT_STATUSES and hit.split(" ")[1].startswith("EXIT_"))
    ]
    assert hits == [], "values of spec/constants.json written by hand (import them from evalschema_models.constants)"


def test_no_constant_restated_in_the_typescript_sdk() -> None:
    sources = sorted(p for p in (ROOT / "js" / "src").rglob("*.ts") if "generated" not in p.relative_to(ROOT / "js" / "src").parts)
    hits = [f"{path.relative_to(ROOT)}:{hit}" for path in sources for hit in typescript_constants(path.read_text(encoding="utf-8"))]
    assert hits == [], "values of spec/constants.json written by hand (import them from generated/constants.js)"


def test_the_constant_scan_finds_the_old_definitions() -> None:
    """The scans are able to fail: each finds the hand-written definitions these SDKs used to hold."""
    old_python = (
        "VALUE_LIMIT = 60\nSUGGESTIONS = 3\nCUTOFF = 0.75\nPARTIAL_KEY = 'evalschema.partial'\nMISSING_SHOWN = 5\n"
        "MIGRATION_KEY = 'evalschema.migration'\n"
        'SUFFIXES = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".yaml": "yaml", ".yml": "yaml"}\n'
        'STREAM_CHOICES = {"auto": None, "always": True, "never": False}\n'
    )
    assert len(python_constants(old_python)) == 8
    assert python_constants('LISTS = frozenset({"allowed", "names", "declared"})') == ["1: LISTS restates MESSAGE_PARAMETERS['lists']"]
    assert typescript_constants('export const LISTS: ReadonlySet<string> = new Set(["allowed", "names", "declared"]);') == [
        "1: LISTS restates MESSAGE_PARAMETERS['lists']"
    ]
    old_typescript = (
        "export const VALUE_LIMIT = 60;\nexport const SUGGESTIONS = 3;\nexport const CUTOFF = 0.75;\n"
        'export const PARTIAL_KEY = "evalschema.partial";\nconst MISSING_SHOWN = 5;\n'
        'export const MIGRATION_KEY = "evalschema.migration";\n'
        'export const SUFFIXES: Readonly<Record<string, "json" | "jsonl" | "yaml">> = {\n  ".json": "json",\n  ".jsonl": "jsonl",\n'
        '  ".ndjson": "jsonl",\n  ".yaml": "yaml",\n  ".yml": "yaml",\n};\n'
        "const STREAM_CHOICES = { auto: null, always: true, never: false } as const;\n"
    )
    assert len(typescript_constants(old_typescript)) == 8, typescript_constants(old_typescript)
    # the exit statuses and choices both CLIs wrote before spec/constants.json held them
    old_python_cli = 'EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2\nFORMS = ("json", "jsonl", "yaml")\n'
    assert [hit.split(" restates ")[1] for hit in python_constants(old_python_cli)] == [
        "EXIT_OK",
        "EXIT_INVALID",
        "EXIT_UNREADABLE",
        "INPUT_FORMS",
    ]
    old_typescript_cli = (
        'const EXIT_OK = 0;\nconst EXIT_INVALID = 1;\nconst EXIT_UNREADABLE = 2;\nconst FORMS = ["json", "jsonl", "yaml"];\n'
    )
    assert len(typescript_constants(old_typescript_cli)) == 4, typescript_constants(old_typescript_cli)
    assert not python_constants("EXIT_BREAKING = 1\nQUIET = False\nX = some_call()\nSUFFIXES = INPUT_SUFFIXES\nPASS_THRESHOLD = 1.0\n")
    assert not typescript_constants("const EXIT_BREAKING = 1;\nexport const SUFFIXES: Readonly<Record<string, Form>> = INPUT_SUFFIXES;\n")


# --- the regular expressions of spec/constants.json, written again by hand ------------------------------------------

# Every regular expression source of spec/constants.json, in one spelling: ECMA-262 named groups (Python's module
# gets ``(?P<name>…)``; the scans below read both spellings back to this one).
PATTERNS: dict[str, str] = {
    name: entry["value"]
    for name, entry in json.loads((ROOT / "spec" / "constants.json").read_text(encoding="utf-8"))["constants"].items()
    if entry.get("regex") or name in ("SEMVER_PREFIX", "URI_VERSION")
}
# A hand-written pattern shares a run of this many characters with a generated one: long enough that no two
# unrelated patterns of these SDKs do (the scheme and host of a $schema URI, a date's month-and-day alternation).
SHARED_RUN = 20


def _normal(source: str) -> str:
    """A pattern source as the constants spell it: ``(?P<`` → ``(?<``, ``\\/`` → ``/``."""
    return source.replace("(?P<", "(?<").replace("\\/", "/")


def _copied(source: str) -> str | None:
    """The constant a pattern (or any string) copies a run of SHARED_RUN characters from, if any."""
    from difflib import SequenceMatcher

    text = _normal(source)
    for name, pattern in PATTERNS.items():
        match = SequenceMatcher(None, text, pattern, autojunk=False).find_longest_match(0, len(text), 0, len(pattern))
        if match.size >= SHARED_RUN:
            return name
    return None


def python_patterns(source: str) -> list[str]:
    """``line: CONSTANT`` for each string literal of a Python module that copies part of a generated pattern."""
    hits = [
        (node.lineno, name)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (name := _copied(node.value)) is not None
    ]
    return [f"{line}: {name}" for line, name in sorted(hits)]


# A regular expression literal (not after a name, a number or a closing bracket: that slash divides) or a string.
_TS_PATTERN = re.compile(
    r"(?<![\w)\]\s])\s*/((?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n\[])+)/[dgimsuy]*|\"((?:\\.|[^\"\\\n])*)\"|'((?:\\.|[^'\\\n])*)'|`((?:\\.|[^`\\])*)`"
)


def typescript_patterns(source: str) -> list[str]:
    """``line: CONSTANT`` for each regular expression literal or string of a TypeScript module that copies part of a
    generated pattern (strings as written: ``"\\\\."`` is read as ``\\.``)."""
    hits = []
    for match in _TS_PATTERN.finditer(source):
        literal = next(group for group in match.groups() if group is not None) if any(match.groups()) else ""
        if match.group(1) is None:
            literal = literal.replace("\\\\", "\\")
        name = _copied(literal)
        if name is not None:
            hits.append(f"{source.count(chr(10), 0, match.start()) + 1}: {name}")
    return hits


def test_no_pattern_restated_in_the_python_sdk() -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{hit}"
        for path in sorted((ROOT / "evalschema").rglob("*.py"))
        for hit in python_patterns(path.read_text(encoding="utf-8"))
    ]
    assert hits == [], "regular expressions of spec/constants.json written by hand (import them from evalschema_models.constants)"


def test_no_pattern_restated_in_the_typescript_sdk() -> None:
    sources = sorted(p for p in (ROOT / "js" / "src").rglob("*.ts") if "generated" not in p.relative_to(ROOT / "js" / "src").parts)
    hits = [f"{path.relative_to(ROOT)}:{hit}" for path in sources for hit in typescript_patterns(path.read_text(encoding="utf-8"))]
    assert hits == [], "regular expressions of spec/constants.json written by hand (import them from generated/constants.js)"


def test_the_pattern_scan_finds_the_old_definitions() -> None:
    """The scans are able to fail: each finds the patterns these SDKs wrote by hand before spec/constants.json held them."""
    old_python = (
        'A = re.compile(r"^https://evalschema\\.org/schema/(?P<version>[^/]+)/(?P<kind>[a-z]+)\\.json\\Z")\n'
        'B = re.compile(r"^https://promptpack\\.org/schema/[^/]+/promptpack\\.schema\\.json\\Z")\n'
        'C = re.compile(r"^(?P<base>https://evalschema\\.org/schema/(?P<version>[^/]+)/)(?P<name>[a-z]+)\\.json$")\n'
        'D = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))", re.ASCII)\n'
        '_COMMON_DAY = r"[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"\n'
    )
    assert [hit.split(": ")[1] for hit in python_patterns(old_python)] == [
        "SCHEMA_URI",
        "PROMPTPACK_SCHEMA_URI",
        "SCHEMA_URI",
        "TIME_FIELDS",
        "COMMON_DATE",
    ]
    old_typescript = (
        "const OURS = /^https:\\/\\/evalschema\\.org\\/schema\\/(?<version>[^/]+)\\/(?<kind>[a-z]+)\\.json$/;\n"
        "const EVALPORT = /^https:\\/\\/evalport\\.org\\/schema\\/(?:v?[0-9][^/]*\\/)?(?<kind>testcase|grader|suite|resultset)\\.json$/;\n"
        "const ID_RE = /^(https:\\/\\/evalschema\\.org\\/schema\\/([^/]+)\\/)([a-z]+)\\.json$/;\n"
        "const DATE_TIME_RE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$/;\n"
        'const S = new RegExp("(0|[1-9][0-9]*)\\\\.(0|[1-9][0-9]*)\\\\.(0|[1-9][0-9]*)");\n'
    )
    assert [hit.split(": ")[1] for hit in typescript_patterns(old_typescript)] == [
        "SCHEMA_URI",
        "EVALPORT_SCHEMA_URI",
        "SCHEMA_URI",
        "DATE_FIELDS",
        "SEMVER_PREFIX",
    ], typescript_patterns(old_typescript)
    assert not python_patterns('X = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")\n') and not typescript_patterns("const X = a / b / c;\n")


# --- message text of the ledger's templates, written again by hand --------------------------------------------------

_LEDGER = json.loads((ROOT / "spec" / "ledger.json").read_text(encoding="utf-8"))["rules"]
# Every template variant with its placeholders as one mark, when its fixed text says something by itself.
TEMPLATES = {
    re.sub(r"\{[a-z_]+\}", "\0", text)
    for rule in _LEDGER
    for text in ([rule["message"]] if isinstance(rule["message"], str) else rule["message"].values())
    if len(re.sub(r"\{[a-z_]+\}", "", text).strip()) >= 12
}
# interop/ is the Python-only `import` command: its errors are not findings and have no TypeScript twin.
NOT_YET = ("evalschema/interop/",)


def python_messages(source: str) -> list[str]:
    """``line: text`` for each string literal or f-string of a Python module that is a ledger template written out
    (its placeholders as formatted values)."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr):
            text = "".join(str(part.value) if isinstance(part, ast.Constant) else "\0" for part in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if text in TEMPLATES:
            hits.append((node.lineno, text.replace("\0", "{}")))
    return [f"{line}: {text}" for line, text in sorted(set(hits))]


def typescript_messages(source: str) -> list[str]:
    """``line: text`` for each string or template literal of a TypeScript module that is a ledger template written out."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    hits = []
    for match in re.finditer(r"\"((?:\\.|[^\"\\\n])*)\"|'((?:\\.|[^'\\\n])*)'|`((?:\\.|[^`\\])*)`", text):
        literal = re.sub(r"\$\{[^}]*\}", "\0", next(group for group in match.groups() if group is not None))
        if literal in TEMPLATES:
            hits.append(f"{text.count(chr(10), 0, match.start()) + 1}: {literal.replace(chr(0), '{}')}")
    return hits


def test_no_message_restated_in_either_sdk() -> None:
    python = sorted((ROOT / "evalschema").rglob("*.py"))
    typescript = [p for p in sorted((ROOT / "js" / "src").rglob("*.ts")) if "generated" not in p.relative_to(ROOT / "js" / "src").parts]
    hits = [
        f"{path.relative_to(ROOT)}:{hit}"
        for path in python + typescript
        if not str(path.relative_to(ROOT)).startswith(NOT_YET)
        for hit in (python_messages if path.suffix == ".py" else typescript_messages)(path.read_text(encoding="utf-8"))
    ]
    assert hits == [], "text of the ledger's message templates written by hand (render the template instead)"


def test_the_message_scan_finds_the_old_literals() -> None:
    """The scans are able to fail: each finds the literals the readers wrote before the ledger held them."""
    assert python_messages('F("", codes.INVALID_YAML, "error", "empty YAML document")\nx = f"not UTF-8 text (byte {n})"\n') == [
        "1: empty YAML document",
        "2: not UTF-8 text (byte {})",
    ]
    assert typescript_messages('finding("", c, "error", `nested more than ${maxDepth} levels deep`);\n') == [
        "1: nested more than {} levels deep"
    ]
    assert not python_messages('render(codes.INVALID_YAML, "empty")\n') and not typescript_messages('render(codes.X, {}, "empty")\n')


# --- phrases and command-line choices of spec/constants.json, written again inline -----------------------------------

# A phrase is a string constant (or member) with a space in it: text for people, such as what the JSON reader
# expected where it stopped (JSON_EXPECTED). Written as a literal anywhere, even inline, it is a copy.
PHRASES = {
    text: f"{name}{at}"
    for name, at, value in _PARTS
    for text in ([value] if isinstance(value, str) else [])
    if " " in text and "{" not in text
}


def python_phrases(source: str) -> list[str]:
    """``line: CONSTANT`` for each string literal of a Python module equal to a phrase of spec/constants.json."""
    hits = {
        (node.lineno, PHRASES[node.value])
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in PHRASES
    }
    return [f"{line}: {name}" for line, name in sorted(hits)]


def _ts_strings(source: str) -> list[tuple[int, str]]:
    """Each string or template literal of a TypeScript module (comments blanked), as written, with its line."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    out = []
    for match in re.finditer(r"\"((?:\\.|[^\"\\\n])*)\"|'((?:\\.|[^'\\\n])*)'|`((?:\\.|[^`\\])*)`", text):
        out.append((text.count("\n", 0, match.start()) + 1, next(group for group in match.groups() if group is not None)))
    return out


def typescript_phrases(source: str) -> list[str]:
    """``line: CONSTANT`` for each string literal of a TypeScript module equal to a phrase of spec/constants.json."""
    return [
        f"{line}: {PHRASES[literal.replace(chr(92) * 2, chr(92))]}"
        for line, literal in _ts_strings(source)
        if literal.replace(chr(92) * 2, chr(92)) in PHRASES
    ]


# The choices of the commands both CLIs have (validate, summarize): each list of spec/constants.json a choice is
# taken from. A literal list of them, or the same words spelled out in a usage or refusal text, is a copy.
CHOICES = {
    "OUTPUT_FORMATS['validate']": CONSTANTS["OUTPUT_FORMATS"]["validate"],
    "OUTPUT_FORMATS['summarize']": CONSTANTS["OUTPUT_FORMATS"]["summarize"],
    "OUTPUT_FORMATS['compare']": CONSTANTS["OUTPUT_FORMATS"]["compare"],
    "INPUT_FORMS": CONSTANTS["INPUT_FORMS"],
    "STREAM_CHOICES": list(CONSTANTS["STREAM_CHOICES"]),
    "KINDS": CONSTANTS["KINDS"],
}
CLI_MODULES = ("evalschema/cli/__init__.py", "js/src/cli/")


def _choices_named(words: list[str]) -> str | None:
    return next((name for name, choices in CHOICES.items() if words == list(choices)), None)


def python_choices(source: str) -> list[str]:
    """``line: CONSTANT`` for each literal tuple, list or set of strings of a Python module that lists choices."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
        ):
            name = _choices_named([e.value for e in node.elts])  # type: ignore[attr-defined]
            if name is not None:
                hits.append((node.lineno, name))
    return [f"{line}: {name}" for line, name in sorted(hits)]


def typescript_choices(source: str) -> list[str]:
    """``line: CONSTANT`` for each array literal of strings of a TypeScript module that lists choices, and each string
    that spells them out (``{a,b,c}`` in a usage text, ``'a', 'b', 'c'`` in a refusal)."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    hits = []
    for match in _INNERMOST.finditer(text):
        if match.group().startswith("["):
            words = re.findall(r"^\s*[\"'`]([^\"'`]*)[\"'`]\s*$", match.group(1).replace(",", "\n"), re.MULTILINE)
            if len(words) == len(match.group(1).split(",")) and (name := _choices_named(words)) is not None:
                hits.append(f"{text.count(chr(10), 0, match.start()) + 1}: {name}")
    for line, literal in _ts_strings(source):
        for spelled in re.findall(r"\{([a-z]+(?:,[a-z]+)+)\}", literal) + re.findall(r"(?<!\w)('[a-z]+'(?:, '[a-z]+')+)", literal):
            name = _choices_named([word.strip(" '") for word in spelled.split(",")])
            if name is not None:
                hits.append(f"{line}: {name}")
    return hits


def test_no_phrase_or_choice_restated_in_either_sdk() -> None:
    python = sorted((ROOT / "evalschema").rglob("*.py"))
    typescript = [p for p in sorted((ROOT / "js" / "src").rglob("*.ts")) if "generated" not in p.relative_to(ROOT / "js" / "src").parts]
    hits = []
    for path in python + typescript:
        relative, source = str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
        scans = [python_phrases, python_choices] if path.suffix == ".py" else [typescript_phrases, typescript_choices]
        if not relative.startswith(CLI_MODULES):
            scans = scans[:1]
        hits += [f"{relative}:{hit}" for scan in scans for hit in scan(source)]
    assert hits == [], "phrases or command-line choices of spec/constants.json written by hand (import them instead)"


def test_the_phrase_and_choice_scans_find_the_old_literals() -> None:
    """The scans are able to fail: each finds what the readers and the CLIs wrote before spec/constants.json held it."""
    assert python_phrases("VALUE = \"a value\"\nraise _unexpected(text, i, \"',' or ']' after an array item\")\n") == [
        "1: JSON_EXPECTED['value']",
        "2: JSON_EXPECTED['array_next']",
    ]
    assert typescript_phrases('export const ESCAPE_HEX = "four hex digits after \\\\u";\nthrow unexpected(text, i, "a value");\n') == [
        "1: JSON_EXPECTED['escape_hex']",
        "2: JSON_EXPECTED['value']",
    ]
    assert python_choices(
        'p.add_argument("--format", choices=("text", "json", "github"), default="text")\nFORMS = ("json", "jsonl", "yaml")\n'
    ) == [
        "1: OUTPUT_FORMATS['validate']",
        "2: INPUT_FORMS",
    ]
    old_typescript = (
        'const formats = command === "validate" ? ["text", "json", "github"] : ["text", "json", "markdown"];\n'
        "const USAGE = `[--input-format {json,jsonl,yaml}] [--stream {auto,always,never}]`;\n"
        "throw new UsageError(`argument --stream: invalid choice: '${value}' (choose from 'auto', 'always', 'never')`);\n"
    )
    assert typescript_choices(old_typescript) == [
        "1: OUTPUT_FORMATS['validate']",
        "1: OUTPUT_FORMATS['summarize']",
        "2: INPUT_FORMS",
        "2: STREAM_CHOICES",
        "3: STREAM_CHOICES",
    ], typescript_choices(old_typescript)
    assert not python_choices('x = ("text", "json", "csv")\n') and not typescript_choices("const x = [a, b];\n")
