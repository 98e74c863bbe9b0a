"""No decision and no finding depends on a third-party error message (issue 17, item 5).

Parsers' and libraries' messages change between versions and differ between the two SDKs: the SDKs decide from
their own state (the strict readers' variants, error classes and codes, positions) and say things in the ledger's
words. This test scans the SDKs' sources (not generated code) for the ways a message gets read: ``str(exc)``,
``exc.msg``, ``exc.args[0]``, ``… in str(…)``, a branch or a regular expression over ``error.message``, a parser's
known phrases ("Expecting value", "Extra data", …).

``KNOWN`` lists the hits that remain in files this change does not own, each with why it is there; an entry that
no longer matches fails too, so the list only shrinks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_EXC = r"(?:exc|err|error|e|problem_error)"
PYTHON = {
    "str(exception)": re.compile(rf"\bstr\({_EXC}\)"),
    "an exception in an f-string": re.compile(rf"\{{{_EXC}(?:![rs])?\}}"),
    "exception.msg": re.compile(rf"\b{_EXC}\.msg\b"),
    "exception.args[…]": re.compile(rf"\b{_EXC}\.args\["),
    "… in str(…)": re.compile(r"\bin\s+str\("),
    "a PyYAML problem text": re.compile(rf"\b{_EXC}\.problem\b(?!_mark)"),
    "a branch on exception.message": re.compile(
        rf"\bin\s+{_EXC}\.message\b|\b{_EXC}\.message\s*\.\s*(?:startswith|endswith|split|find|index|partition)\("
    ),
    "a regular expression over a message": re.compile(rf"\bre\.\w+\([^)]*\b{_EXC}\.(?:message|msg)\b"),
}
TYPESCRIPT = {
    "a branch on error.message": re.compile(r"\bmessage\s*\.\s*(?:includes|startsWith|endsWith|match|matchAll|indexOf|search|split)\("),
    "a regular expression over error.message": re.compile(rf"\.(?:exec|test)\(\s*(?:{_EXC}\.message|message)\b"),
    "a third-party Error's message": re.compile(r"\((?:e|err|error|exc)\s+as\s+Error\)\.message"),
    "String(error)": re.compile(rf"\bString\({_EXC}\)"),
}
PHRASES = re.compile(
    r"[\"'`](?:Expecting (?:value|property|','|':')|Extra data|Unterminated string|Invalid control character|"
    r"Invalid \\\\u?escape|Unexpected (?:end of JSON|non-whitespace|token)|unexpected (?:end of data|content after))"
)

# (file, line text fragment): why it is still there. Only files outside issue 17's reader change.
KNOWN: dict[tuple[str, str], str] = {
    ("evalschema/interop/inspect_ai.py", "shown = str(exc)"): "Inspect's text, shown in a conversion error (the code and "
    "pointer come from the importer's own checks of the file and the exception's type)",
    ("evalschema/cli/interopcmd.py", "str(exc)"): "the importer's own ConversionError text, shown",
    ("evalschema/cli/interopcmd.py", 'print(f"evalschema: {error}"'): "the importer's own ConversionError text, shown",
    ("evalschema/migrate.py", "cannot migrate: {visible(str(exc))"): "shown to the user, no decision",
    ("evalschema/migrate.py", "not valid {form.upper()}: {visible(str(exc))"): "shown to the user, no decision",
    ("evalschema/cli/__init__.py", 'f"evalschema: {exc}'): "a usage error of the CLI's own, shown",
    ("evalschema/cli/columnarcmd.py", 'f"cannot read as {fmt}: {exc}"'): "pyarrow's reason, shown in an export error, no decision",
    ("evalschema/interop/deepeval.py", 'f"not valid JSON: {exc}"'): "an importer's JSON error text, shown (no ledger finding)",
    ("evalschema/interop/lm_eval.py", 'f"not valid JSON: {exc}"'): "an importer's JSON error text, shown (no ledger finding)",
    ("evalschema/interop/lm_eval.py", 'f"not a JSON line: {exc}"'): "an importer's JSON error text, shown (no ledger finding)",
    ("evalschema/interop/openai_evals.py", 'f"not a JSON line: {exc}"'): "an importer's JSON error text, shown (no ledger finding)",
    ("evalschema/interop/promptfoo.py", 'f"not valid JSON: {exc}"'): "an importer's JSON error text, shown (no ledger finding)",
    ("evalschema/interop/promptfoo.py", '"message": str(error)'): "an exporter writes a provider error's text as data",
    ("evalschema/columnar.py", "visible(str(exc).splitlines()[0] if str(exc)"): "pyarrow's reason, shown in an import error "
    "(the code comes from the importer's own checks), no decision",
    ("evalschema/interop/base.py", "else str(exc)"): "a JSON writer's reason, shown in a conversion error; the decision is "
    "by the exception's type",
    ("evalschema/io/gate.py", "or str(exc)) from None"): "the system's words for a refused output when its errno has none, "
    "shown; the refusal is decided by the error's type",
}


def _sources() -> list[Path]:
    python = list((ROOT / "evalschema").rglob("*.py"))
    typescript = [p for p in (ROOT / "js" / "src").rglob("*.ts") if "generated" not in p.relative_to(ROOT / "js" / "src").parts]
    return sorted(python + typescript)


def hits(path: Path, text: str) -> list[tuple[int, str, str]]:
    """(line number, what, line) for every place in a source that reads an exception's message."""
    patterns = PYTHON if path.suffix == ".py" else TYPESCRIPT
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("#", 1)[0] if path.suffix == ".py" else line.split("//", 1)[0]
        for what, pattern in patterns.items():
            if pattern.search(code):
                out.append((number, what, line.strip()))
        if PHRASES.search(code):
            out.append((number, "a parser's phrase", line.strip()))
    return out


def test_no_source_reads_a_third_party_message() -> None:
    found = []
    used = set()
    for path in _sources():
        name = path.relative_to(ROOT).as_posix()
        for number, what, line in hits(path, path.read_text("utf-8")):
            known = next((k for k in KNOWN if k[0] == name and k[1] in line), None)
            if known is not None:
                used.add(known)
                continue
            found.append(f"{name}:{number}: {what}: {line}")
    assert not found, "decide from the reader's own state, not a message:\n" + "\n".join(found)
    assert not set(KNOWN) - used, f"stale KNOWN entries (fixed? remove them): {sorted(set(KNOWN) - used)}"


@pytest.mark.parametrize(
    ("suffix", "line"),
    [
        (".py", 'if form == "json" or "Extra data" not in single.problem.message:'),
        (".py", 'raise ReadProblem(codes.INVALID_JSON, f"not valid JSON: {exc.msg}", (exc.lineno, exc.colno))'),
        (".py", "if not exc.msg.startswith(_AFTER_VALUE):"),
        (".py", 'return Finding("", codes.INVALID_YAML, "error", f"not valid YAML: {exc.problem}", *where)'),
        (".py", 'raise ConstructorError(None, None, f"integer out of range: {exc}", node.start_mark)'),
        (".py", "cut = 'Unterminated string' in exc.message"),
        (".ts", '!single.problem.message.includes("Extra data")'),
        (".ts", "const after = AFTER_VALUE.exec(message);"),
        (".ts", 'const cut = message.startsWith("Unexpected end of JSON input");'),
        (".ts", 'throw new JsonError("Expecting value", i);'),
        (".ts", "return message.split(\"\\n\")[0]!.replace(/ at line/, '');"),
        (".ts", "return finding('', codes.FILE_UNREADABLE, 'error', `cannot read: ${(error as Error).message}`);"),
    ],
)
def test_the_scan_sees_what_the_old_readers_did(suffix: str, line: str) -> None:
    """Lines of the readers before issue 17: each is caught (a scan that finds nothing proves nothing)."""
    assert hits(Path("x" + suffix), line), line
