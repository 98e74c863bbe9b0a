"""Builders for the hostile-input corpus rows that name one (``"build": "<name>"`` in ``tests/hostile/cases.json``).

Each builder writes its input into a fresh folder and returns the names its row's ``argv`` uses (``{in}``, …).
Big inputs are sparse files (``truncate``: no disk is used) or are generated here, never committed; nothing is
larger than the row needs.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "spec" / "examples"
SCHEMAS = ROOT / "schemas"

Built = dict[str, Any]  # placeholder -> value; "stdin": bytes; "skip": reason
BUILDERS: dict[str, Callable[[Path, dict[str, Any]], Built]] = {}


def builder(function: Callable[[Path, dict[str, Any]], Built]) -> Callable[[Path, dict[str, Any]], Built]:
    BUILDERS[function.__name__] = function
    return function


def example(name: str) -> Any:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def _write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _grader(**extra: Any) -> dict[str, Any]:
    return {
        "$schema": "https://evalschema.org/schema/1.1.0/grader.json",
        "id": "g",
        "type": "contains",
        "params": {"substring": "x"},
        **extra,
    }


# --- files and devices -------------------------------------------------------------------------------------


@builder
def sparse(folder: Path, case: dict[str, Any]) -> Built:
    """A sparse file of ``size`` bytes (zeros; no disk used), after an optional ``head`` text."""
    path = folder / case.get("file_name", "sparse.json")
    _write(path, case.get("head", ""))
    os.truncate(path, case["size"])
    return {"in": str(path)}


@builder
def link(folder: Path, case: dict[str, Any]) -> Built:
    """A symbolic link named ``file_name`` to ``target`` (a device, a /proc file)."""
    if not Path(case["target"]).exists():
        return {"skip": f"no {case['target']}"}
    path = folder / case.get("file_name", "input.json")
    path.symlink_to(case["target"])
    return {"in": str(path)}


@builder
def fifo(folder: Path, case: dict[str, Any]) -> Built:
    path = folder / case.get("file_name", "pipe.json")
    os.mkfifo(path)
    return {"in": str(path)}


@builder
def unix_socket(folder: Path, case: dict[str, Any]) -> Built:
    path = folder / "socket.json"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the socket file stays
    return {"in": str(path)}


@builder
def text(folder: Path, case: dict[str, Any]) -> Built:
    """A file holding ``data`` (text) or ``data_hex``, named ``file_name``."""
    data = bytes.fromhex(case["data_hex"].replace(" ", "")) if "data_hex" in case else case["data"].encode("utf-8")
    path = folder / case.get("file_name", "input.json")
    _write(path, data)
    return {"in": str(path), "dir": str(folder)}


@builder
def document(folder: Path, case: dict[str, Any]) -> Built:
    """A JSON document given in the row (``document``), written as ``file_name``."""
    path = folder / case.get("file_name", "input.json")
    _write(path, json.dumps(case["document"]))
    return {"in": str(path)}


@builder
def odd_name(folder: Path, case: dict[str, Any]) -> Built:
    """An example copied to a file whose name is ``name_hex`` (bytes: not UTF-8, newlines, commas…)."""
    name = os.fsdecode(bytes.fromhex(case["name_hex"]))
    path = folder / name
    source = case.get("example", "grader-llm-judge.json")
    _write(path, json.dumps(_grader(zz_unknown=1)) if source == "__unknown__" else (EXAMPLES / source).read_bytes())
    return {"in": str(path)}


@builder
def stdin_data(folder: Path, case: dict[str, Any]) -> Built:
    return {"stdin": case.get("data", "").encode("utf-8")}


@builder
def examples(folder: Path, case: dict[str, Any]) -> Built:
    """``copies`` copies of every example (many findings: output that outlives a closed pipe), each copy in a
    folder of its own beside the test cases files the example suites name."""
    paths = []
    for i in range(case.get("copies", 1)):
        (folder / str(i)).mkdir()
        for source in sorted(EXAMPLES.glob("*.jsonl")):
            _write(folder / str(i) / source.name, source.read_bytes())
        for source in sorted(EXAMPLES.glob("*.json")):
            paths.append(str(_write(folder / str(i) / source.name, source.read_bytes())))
    return {"list": paths}


@builder
def loop_folder(folder: Path, case: dict[str, Any]) -> Built:
    """A folder holding one example and a link back to itself (and to its parent): a loop for a walker that
    follows links."""
    root = folder / "tree"
    (root / "sub").mkdir(parents=True)
    _write(root / "sub" / "grader.json", (EXAMPLES / "grader-llm-judge.json").read_bytes())
    (root / "sub" / "again").symlink_to("..")
    (root / "self").symlink_to(".")
    return {"in": str(root), "glob": str(root / "**" / "*.json")}


# --- documents that are large in one way ----------------------------------------------------------------------


@builder
def big_string(folder: Path, case: dict[str, Any]) -> Built:
    """A test case whose ``input`` is ``megabytes`` MB of ``unit``, plus one unknown field."""
    document = example("testcase-rag-answer.json")
    document["zz_unknown"] = 1
    head, tail = json.dumps(document).split('"input": ', 1)
    tail = tail.split(", ", 1)[1] if tail.startswith('"') else tail
    path = folder / "big-string.json"
    unit = case.get("unit", "lorem ipsum ").encode()
    with path.open("wb") as out:
        out.write(head.encode() + b'"input": "')
        block = unit * (1 << 20 // max(1, len(unit)) or 1)
        written = 0
        while written < case["megabytes"] << 20:
            out.write(block)
            written += len(block)
        out.write(b'", ' + tail.encode())
    return {"in": str(path)}


@builder
def big_row(folder: Path, case: dict[str, Any]) -> Built:
    """A result set with one row whose ``actual_output`` is ``megabytes`` MB (and, with ``unknown``, a field the
    row may not have)."""
    document = example("resultset-multi-attempt.json")
    document.pop("summary", None)
    row = document["results"][0]
    row["actual_output"] = "__BIG__"
    if case.get("unknown"):
        row["zz_unknown"] = 1
    head, tail = json.dumps(document).split('"__BIG__"')
    path = folder / "big-row.json"
    with path.open("wb") as out:
        out.write(head.encode() + b'"')
        chunk = b"lorem ipsum " * 87382
        for _ in range(case["megabytes"]):
            out.write(chunk)
        out.write(b'"' + tail.encode())
    return {"in": str(path)}


@builder
def many_keys(folder: Path, case: dict[str, Any]) -> Built:
    """A test case with ``count`` unknown top-level keys."""
    document = example("testcase-rag-answer.json")
    text = json.dumps(document)[:-1] + "".join(f', "u{i}": 1' for i in range(case["count"])) + "}"
    return {"in": str(_write(folder / "many-keys.json", text))}


@builder
def many_rows(folder: Path, case: dict[str, Any]) -> Built:
    """A result set of ``count`` copies of a valid row (distinct attempts), each with one unknown field."""
    document = example("resultset-multi-attempt.json")
    document.pop("summary", None)
    row = document.pop("results")[0]
    head = json.dumps(document)[:-1] + ', "results": '
    path = folder / "many-rows.json"
    with path.open("w", encoding="utf-8") as out:
        out.write(head + "[")
        for start in range(0, case["count"], 1000):
            out.write(
                ("," if start else "")
                + ",".join(json.dumps(dict(row, attempt=i + 1, zz=1)) for i in range(start, min(case["count"], start + 1000)))
            )
        out.write("]}")
    return {"in": str(path)}


@builder
def example_file(folder: Path, case: dict[str, Any]) -> Built:
    """A copy of the example ``example`` of ``spec/examples``."""
    return {"in": str(_write(folder / case["example"], (EXAMPLES / case["example"]).read_bytes()))}


@builder
def rows_one_big(folder: Path, case: dict[str, Any]) -> Built:
    """A result set of ``count`` valid rows (distinct attempts) where row ``big_at`` alone has an ``actual_output``
    of ``big_bytes`` characters: the one row over a small input size limit, deep inside a batch of rows."""
    document = example("resultset-multi-attempt.json")
    document.pop("summary", None)
    row = document.pop("results")[0]
    rows = [dict(row, attempt=i + 1) for i in range(case["count"])]
    rows[case["big_at"]]["actual_output"] = "x" * case["big_bytes"]
    text = json.dumps(document)[:-1] + ', "results": [' + ",".join(json.dumps(r) for r in rows) + "]}"
    return {"in": str(_write(folder / "rows-one-big.json", text))}


@builder
def promptfoo_rows(folder: Path, case: dict[str, Any]) -> Built:
    """A promptfoo results file (the shape of ``tests/interop/data/promptfoo/echo-results.json``) with ``count``
    small rows, written row by row: 1,000,000 make 190 MB (issue 39: an import of it died with SIGSEGV at 2.2 GB)."""
    source = json.loads((ROOT / "tests" / "interop" / "data" / "promptfoo" / "echo-results.json").read_text(encoding="utf-8"))
    row = {key: source["results"]["results"][0][key] for key in ("promptIdx", "success", "score", "provider")}
    source["results"]["results"] = "__ROWS__"
    head, tail = json.dumps(source).split('"__ROWS__"')
    path = folder / "promptfoo-results.json"
    with path.open("w", encoding="utf-8") as out:
        out.write(head + "[")
        for start in range(0, case["count"], 10000):
            rows = (dict(row, testIdx=i, response={"output": "ok"}) for i in range(start, min(case["count"], start + 10000)))
            out.write(("," if start else "") + ",".join(json.dumps(r) for r in rows))
        out.write("]" + tail)
    return {"in": str(path), "out": str(folder / "imported.json")}


@builder
def many_lines(folder: Path, case: dict[str, Any]) -> Built:
    """A JSON Lines file of ``count`` tiny valid graders."""
    line = json.dumps({"id": "g", "type": "contains", "params": {"substring": "x"}}) + "\n"
    path = folder / "many.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for _ in range(case["count"] // 10000):
            out.write(line * 10000)
    return {"in": str(path)}


@builder
def yaml_alias_findings(folder: Path, case: dict[str, Any]) -> Built:
    """A small YAML suite whose aliases repeat the same test cases (duplicate ids) many times over."""
    body = "id: s\nversion: 1.0.0\ngraders:\n  - {id: g, type: contains, params: {substring: x}}\ntest_cases:\n"
    body += "  - &one {id: dup, input: x, graders: [g]}\n" + "  - *one\n" * (case["count"] - 1)
    return {"in": str(_write(folder / "suite.yaml", body))}


@builder
def yaml_text(folder: Path, case: dict[str, Any]) -> Built:
    """A YAML document: ``head`` then ``count`` repetitions of ``item`` joined by ``sep`` and then ``tail``."""
    body = case.get("head", "") + case.get("sep", "").join([case.get("item", "")] * case.get("count", 0)) + case.get("tail", "")
    return {"in": str(_write(folder / case.get("file_name", "input.yaml"), body))}


@builder
def nested_yaml(folder: Path, case: dict[str, Any]) -> Built:
    depth = case["depth"]
    body = (
        "id: t\ninput: x\ngraders: [{id: g, type: contains, params: {substring: x}}]\nmetadata:\n  deep: "
        + "[" * depth
        + "]" * depth
        + "\n"
    )
    return {"in": str(_write(folder / "nested.yaml", body))}


@builder
def huge_scores(folder: Path, case: dict[str, Any]) -> Built:
    """A result set whose scores overflow any sum (1e308 each): the averages are not finite."""
    document = example("resultset-multi-attempt.json")
    document.pop("summary", None)
    for row in document["results"]:
        row["score"] = 1e308
        for result in row.get("grader_results", []):
            result["score"] = 1e308
    return {"in": str(_write(folder / "huge-scores.json", json.dumps(document)))}


@builder
def control_summary(folder: Path, case: dict[str, Any]) -> Built:
    """A result set whose suite id, run id and grader names hold terminal control sequences and newlines."""
    document = example("resultset-multi-attempt.json")
    document.pop("summary", None)
    document["suite_id"] = "s\x1b]0;owned\x07\n::error file=forged.py,line=1::x"
    document["run_id"] = "r\u202eevil"
    for row in document["results"]:
        for result in row.get("grader_results", []):
            result["grader_id"] = "g\x1b[2J\n::warning::forged"
    return {"in": str(_write(folder / "control.json", json.dumps(document)))}


@builder
def claimed_summary(folder: Path, case: dict[str, Any]) -> Built:
    document = example("resultset-multi-attempt.json")
    document["summary"]["passed"] += 1
    return {"in": str(_write(folder / "claimed.json", json.dumps(document, indent=1)))}


# --- outputs ----------------------------------------------------------------------------------------------------


@builder
def html_target(folder: Path, case: dict[str, Any]) -> Built:
    """A result set, and an --html target of the kind ``target``: a FIFO, a folder, a symlink, a missing folder,
    a regular file, or a device."""
    source = _write(folder / "results.json", (EXAMPLES / "resultset-multi-attempt.json").read_bytes())
    kind = case["target"]
    out = folder / "report.html"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "folder":
        out.mkdir()
    elif kind == "symlink":
        _write(folder / "real.html", "keep me\n")
        out.symlink_to(folder / "real.html")
    elif kind == "missing_folder":
        out = folder / "no-such-folder" / "report.html"
    elif kind == "regular":
        _write(out, "old report\n")
    elif kind == "device":
        out = Path("/dev/null")
    return {"in": str(source), "out": str(out)}


# --- migrate ---------------------------------------------------------------------------------------------------


@builder
def pack_text(folder: Path, case: dict[str, Any]) -> Built:
    """The legacy pack example with ``insert`` placed right after its opening brace (or YAML ``yaml`` as is)."""
    if "yaml" in case:
        return {"in": str(_write(folder / "pack.yaml", case["yaml"]))}
    text = (EXAMPLES / "pack-legacy-fail-on-violation.json").read_text(encoding="utf-8")
    if "insert" in case:
        text = "{" + case["insert"] + text.lstrip()[1:]
    if "data_hex" in case:
        return {"in": str(_write(folder / "pack.json", text.encode() + bytes.fromhex(case["data_hex"])))}
    return {"in": str(_write(folder / "pack.json", text))}


@builder
def big_pack(folder: Path, case: dict[str, Any]) -> Built:
    document = example("pack-legacy-fail-on-violation.json")
    prompt = document["prompts"]["support"]
    document["prompts"] = {f"p{i}": json.loads(json.dumps(prompt)) for i in range(case["count"])}
    return {"in": str(_write(folder / "pack.json", json.dumps(document, indent=2)))}


# --- diff ------------------------------------------------------------------------------------------------------


@builder
def schema_folders(folder: Path, case: dict[str, Any]) -> Built:
    """Two copies of schemas/; in the new one, ``grader.json`` gets ``insert`` after its brace, or ``append_hex``
    bytes at its end, or ``nest`` levels of subschemas, or becomes a ``sparse`` file or a ``link``."""
    old, new = folder / "old", folder / "new"
    for target in (old, new):
        target.mkdir()
        for source in SCHEMAS.glob("*.json"):
            _write(target / source.name, source.read_bytes())
    grader = new / "grader.json"
    text = grader.read_text(encoding="utf-8")
    if "insert" in case:
        _write(grader, "{" + case["insert"] + text.lstrip()[1:])
    if "append_hex" in case:
        _write(grader, text.encode() + bytes.fromhex(case["append_hex"]))
    if "nest" in case:
        deep = '{"properties": {"a": ' * case["nest"] + "{}" + "}}" * case["nest"]
        _write(grader, '{"x-deep": ' + deep + "," + text.lstrip()[1:])
    if "sparse" in case:
        grader.unlink()
        _write(grader, "")
        os.truncate(grader, case["sparse"])
    if "link" in case:
        (new / "extra.json").symlink_to(case["link"])
    return {"old": str(old), "new": str(new)}


# --- suites and their test_cases_file ----------------------------------------------------------------------------


@builder
def suite_cases(folder: Path, case: dict[str, Any]) -> Built:
    """A suite (in ``suite/``) whose test cases are in ``test_cases_file``: ``cases`` says what that is — the
    example's cases beside the suite, a path outside, a missing file, a link leading out, /dev/zero, a bad line."""
    suite = example("suite-qa-basic.json")
    cases = suite.pop("test_cases")
    home = folder / "suite"
    home.mkdir()
    (folder / "outside.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    kind = case["cases"]
    name = "cases.jsonl"
    if kind == "beside":
        (home / name).write_text("".join(json.dumps(c) + "\n" for c in cases))
    elif kind == "absolute":
        name = str(folder / "outside.jsonl")
    elif kind == "etc_passwd":
        name = "/etc/passwd"
    elif kind == "dotdot":
        name = "../outside.jsonl"
    elif kind == "missing":
        name = "missing.jsonl"
    elif kind == "link_out":
        (home / name).symlink_to(folder / "outside.jsonl")
    elif kind == "dev_zero":
        (home / name).symlink_to("/dev/zero")
    elif kind == "bad_line":
        (home / name).write_text(json.dumps(cases[0]) + "\n{bad\n")
    suite["test_cases_file"] = name
    _write(home / "suite.json", json.dumps(suite))
    results = _write(folder / "results.json", (EXAMPLES / "resultset-multi-attempt.json").read_bytes())
    return {"suite": str(home / "suite.json"), "in": str(results)}


# --- the adversarial pass of issue 15: inputs no earlier row tried ----------------------------------------------


@builder
def lm_eval_import(folder: Path, case: dict[str, Any]) -> Built:
    """An lm-eval run of ``count`` documents (the real run's results and its samples, each document's sample line
    repeated with its own ``doc_id``), imported: a result set, and a suite whose test cases are in a JSON Lines
    ``test_cases_file`` beside it (the import's own choice for so many cases). ``{in}`` the result set, ``{suite}``
    the suite."""
    from evalschema.interop import import_results

    source = FIXTURES / "lm_eval" / "valid"
    inputs = folder / "lm-eval"
    inputs.mkdir()
    for item in sorted(source.iterdir()):
        if item.name.startswith("results_"):
            _write(inputs / item.name, item.read_bytes())
            continue
        lines = [json.loads(line) for line in item.read_text(encoding="utf-8").splitlines() if line.strip()]
        with (inputs / item.name).open("w", encoding="utf-8") as out:
            for start in range(0, case["count"], 10000):
                block = range(start, min(case["count"], start + 10000))
                out.write("".join(json.dumps(dict(lines[i % len(lines)], doc_id=i)) + "\n" for i in block))
    result_set = folder / "lm.resultset.json"
    import_results("lm_eval", sorted(inputs.iterdir()), result_set)
    suite = folder / "lm.suite.json"
    assert "test_cases_file" in json.loads(suite.read_text(encoding="utf-8")), "the import kept its test cases inline"
    return {"in": str(result_set), "suite": str(suite)}


@builder
def self_link(folder: Path, case: dict[str, Any]) -> Built:
    path = folder / "loop.json"
    path.symlink_to(path.name)
    return {"in": str(path)}


@builder
def long_name(folder: Path, case: dict[str, Any]) -> Built:
    return {"in": str(folder / ("n" * case["length"] + ".json"))}


@builder
def under_a_file(folder: Path, case: dict[str, Any]) -> Built:
    _write(folder / "file.json", "{}")
    return {"in": str(folder / "file.json" / "inner.json")}


@builder
def suite_special(folder: Path, case: dict[str, Any]) -> Built:
    """A --suite that is a FIFO, a link to /dev/zero, a sparse file; or whose test_cases_file is ``name`` (with
    ``kind``: a FIFO, a sparse file or a folder created under that name)."""
    results = _write(folder / "results.json", (EXAMPLES / "resultset-multi-attempt.json").read_bytes())
    suite_path = folder / "suite.json"
    kind = case["suite"]
    if kind == "fifo":
        os.mkfifo(suite_path)
    elif kind == "dev_zero":
        suite_path.symlink_to("/dev/zero")
    elif kind == "sparse":
        _write(suite_path, "")
        os.truncate(suite_path, 10 << 30)
    else:
        suite = example("suite-qa-basic.json")
        suite.pop("test_cases")
        suite["test_cases_file"] = case["name_in_suite"]
        _write(suite_path, json.dumps(suite))
        target = folder / case["name_in_suite"] if case["name_in_suite"] and "\x00" not in case["name_in_suite"] else None
        if kind == "cases_fifo" and target is not None:
            os.mkfifo(target)
        elif kind == "cases_sparse" and target is not None:
            _write(target, "")
            os.truncate(target, 10 << 30)
        elif kind == "cases_folder" and target is not None:
            target.mkdir()
    return {"suite": str(suite_path), "in": str(results)}


@builder
def pack_link(folder: Path, case: dict[str, Any]) -> Built:
    """A legacy pack in ``real/``, and a symbolic link to it: migrate must keep the link a link."""
    (folder / "real").mkdir()
    real = _write(folder / "real" / "pack.json", (EXAMPLES / "pack-legacy-fail-on-violation.json").read_bytes())
    link_path = folder / "pack.json"
    link_path.symlink_to(real)
    return {"in": str(link_path), "real": str(real)}


@builder
def html_over_input(folder: Path, case: dict[str, Any]) -> Built:
    source = _write(folder / "results.json", (EXAMPLES / "resultset-multi-attempt.json").read_bytes())
    return {"in": str(source), "out": str(source)}


@builder
def yaml_many_documents(folder: Path, case: dict[str, Any]) -> Built:
    body = "".join("---\nid: g\ntype: contains\nparams: {substring: x}\n" for _ in range(case["count"]))
    return {"in": str(_write(folder / "many.yaml", body))}


# --- other tools' outputs, changed (issue 39: import) ---------------------------------------------------------

FIXTURES = ROOT / "tests" / "interop" / "fixtures"


def _put(document: Any, pointer: str, value: Any) -> None:
    """Set the value at the JSON Pointer ``pointer`` (the last token may be new, or ``-`` to append)."""
    *parents, last = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    for token in parents:
        document = document[int(token)] if isinstance(document, list) else document[token]
    if isinstance(document, list):
        document.append(value) if last == "-" else document.__setitem__(int(last), value)
    else:
        document[last] = value


def _get(document: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document


def _edited(document: Any, case: dict[str, Any]) -> bytes:
    """``document`` with the row's edits: ``set`` [[pointer, value]], ``copy`` [[from, to]] (a deep copy; then
    ``set`` applies), ``nest`` [pointer, depth] (an array nested ``depth`` deep, spliced in as text: deeper than
    any parser's recursion), then ``raw`` [[old, new]] on the text (values JSON cannot hold: ``NaN``, ``1e400``)."""
    for source, target in case.get("copy", []):
        _put(document, target, json.loads(json.dumps(_get(document, source))))
    for pointer, value in case.get("set", []):
        _put(document, pointer, value)
    text = json.dumps(document)
    if "nest" in case:
        pointer, depth = case["nest"]
        _put(document, pointer, "@NEST@")
        text = json.dumps(document).replace('"@NEST@"', "[" * depth + "]" * depth)
    for old, new in case.get("raw", []):  # text no JSON value spells (NaN, 1e400, a 5,000-digit integer)
        assert old in text, old
        text = text.replace(old, new)
    return text.encode()


@builder
def foreign(folder: Path, case: dict[str, Any]) -> Built:
    """A real tool output (``fixture``, under tests/interop/fixtures), edited as the row says; ``{out}`` the
    result set to write, ``{list}`` every input file (an lm-eval folder's results and samples).

    ``.json``: the edits of :func:`_edited`. ``.jsonl``: ``lines`` [[line (1-based), pointer, value]] and
    ``replace`` [[pointer, old, new]] (every line whose value at pointer is ``old``). An lm-eval folder: the edits
    apply to its ``results_*.json``. A ``.eval`` archive: the edits apply to its header entries, ``duplicate``
    adds a second entry of that name, ``member`` [name, size] adds an entry of ``size`` spaces (deflated: small on
    disk, large inflated).
    """
    source = FIXTURES / case["fixture"]
    out = {"out": str(folder / "out.resultset.json")}
    if source.is_dir():
        files = []
        for item in sorted(source.iterdir()):
            data = item.read_bytes()
            if item.name.startswith("results_"):
                data = _edited(json.loads(data), case)
            files.append(str(_write(folder / item.name, data)))
        return {**out, "in": files[0], "list": files}
    target = folder / source.name
    if source.suffix == ".jsonl":
        lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
        for number, pointer, value in case.get("lines", []):
            _put(lines[number - 1], pointer, value)
        for pointer, old, new in case.get("replace", []):
            for line in lines:
                try:
                    found = _get(line, pointer)
                except (KeyError, IndexError, TypeError):
                    continue
                if found == old and type(found) is type(old):
                    _put(line, pointer, new)
        _write(target, "".join(json.dumps(line) + "\n" for line in lines))
    elif source.suffix == ".eval":
        import zipfile

        with contextlib.suppress(ImportError):  # Inspect's zstd entries
            import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401
        with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for name in original.namelist():
                data = original.read(name)
                if name in ("header.json", "_journal/start.json"):
                    data = _edited(json.loads(data), case)
                archive.writestr(name, data)
                if name == case.get("duplicate"):
                    with warnings.catch_warnings():  # zipfile warns of the duplicate name: the point of the row
                        warnings.simplefilter("ignore")
                        archive.writestr(name, data)
            if "member" in case:
                name, size = case["member"]
                with archive.open(name, "w", force_zip64=True) as entry:
                    block = b" " * (1 << 20)
                    for _ in range(size >> 20):
                        entry.write(block)
    else:
        _write(target, _edited(json.loads(source.read_bytes()), case))
    return {**out, "in": str(target), "list": [str(target)]}


# --- damaged archives, edited examples, columnar exports (issue 39, round three) ---------------------------------


def _zip_entries(data: bytes) -> list[tuple[str, int, int]]:
    """(name, local header offset, central directory record offset) of every entry, from the central directory."""
    import struct

    end = data.rindex(b"PK\x05\x06")
    count, _, start = struct.unpack("<HII", data[end + 10 : end + 20])
    out, at = [], start
    for _ in range(count):
        name_length, extra_length, comment_length = struct.unpack("<HHH", data[at + 28 : at + 34])
        (local,) = struct.unpack("<I", data[at + 42 : at + 46])
        out.append((data[at + 46 : at + 46 + name_length].decode(), local, at))
        at += 46 + name_length + extra_length + comment_length
    return out


@builder
def eval_archive(folder: Path, case: dict[str, Any]) -> Built:
    """The Inspect ``.eval`` fixture (rewritten by :func:`foreign`, with its edits), then damaged in its zip
    structure as ``damage`` says, on the entry ``entry``: ``crc`` (a wrong CRC-32), ``method`` (compression method
    99), ``encrypted`` (the encryption flag), ``size`` (``size``: the uncompressed size the central directory
    claims), ``cut`` (the last ``bytes`` bytes removed), ``replace`` (the entry's content becomes ``data``),
    ``add`` (a new entry ``entry`` holding ``data``)."""
    import struct
    import zipfile

    names = foreign(folder, {**case, "fixture": "inspect_ai/valid.eval"})
    path = Path(names["in"])
    damage = case["damage"]
    if damage in ("replace", "add"):
        with zipfile.ZipFile(path) as original:
            members = [(n, original.read(n)) for n in original.namelist()]
        if damage == "add":
            members.append((case["entry"], b""))
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, content in members:
                archive.writestr(name, case["data"].encode() if name == case["entry"] else content)
        return names
    data = bytearray(path.read_bytes())
    if damage == "cut":
        _write(path, bytes(data[: -case["bytes"]]))
        return names
    (local, central) = next((lo, ce) for n, lo, ce in _zip_entries(bytes(data)) if n == case["entry"])
    if damage == "crc":
        for at in (local + 14, central + 16):
            data[at : at + 4] = struct.pack("<I", struct.unpack("<I", data[at : at + 4])[0] ^ 0xFFFF)
    elif damage == "method":
        for at in (local + 8, central + 10):
            data[at : at + 2] = struct.pack("<H", 99)
    elif damage == "encrypted":
        for at in (local + 6, central + 8):
            data[at] |= 1
    elif damage == "size":
        for at in (local + 22, central + 24):
            data[at : at + 4] = struct.pack("<I", case["size"])
    else:
        raise AssertionError(f"unknown damage {damage!r}")
    _write(path, bytes(data))
    return names


@builder
def example_edited(folder: Path, case: dict[str, Any]) -> Built:
    """The example ``example`` with the edits of :func:`_edited` (``set``, ``copy``, ``nest``, ``raw``), written as
    ``file_name``; ``{out}`` an output path beside it, ``{list}`` the file."""
    path = _write(folder / case.get("file_name", case["example"]), _edited(example(case["example"]), case))
    return {"in": str(path), "list": [str(path)], "out": str(folder / case.get("out_name", "out.json")), "dir": str(folder)}


@builder
def over_limit_folder(folder: Path, case: dict[str, Any]) -> Built:
    """A folder of valid and invalid files beside one input over the input size limit, built by the builder
    ``inner`` (with the row's parameters): ``{in}`` the folder, ``{list}`` its files."""
    inner = folder / "inner"
    inner.mkdir()
    names = BUILDERS[case["inner"]](inner, case)
    big = Path(names["in"])
    big = big.rename(folder / big.name)
    inner.rmdir()
    resultset = example("resultset-multi-attempt.json")
    files = [big]
    for index in range(2):
        files.append(_write(folder / f"ok{index}.json", json.dumps({**resultset, "run_id": f"run-{index}"})))
    files.append(_write(folder / "bad.json", json.dumps({**resultset, "run_id": 7})))
    return {"in": str(folder), "list": sorted(str(f) for f in files)}


@builder
def columnar(folder: Path, case: dict[str, Any]) -> Built:
    """The example result set exported to ``to`` (parquet or arrow) in ``cols/``, then table ``table`` changed as
    ``change`` says: ``column`` (column ``column`` set to ``values``, of Arrow type ``type``), ``drop`` (the column
    removed), ``empty`` (the file emptied), ``cut`` (its last ``bytes`` bytes removed), ``metadata`` (its schema
    metadata key ``key`` set to ``value``), ``json`` (the ``_json`` column set to the text ``value`` on every row).
    ``{in}`` the folder, ``{out}`` the result set to import into."""
    import pyarrow as pa
    import pyarrow.ipc as ipc
    import pyarrow.parquet as pq

    to = case.get("to", "parquet")
    cols = folder / "cols"
    source = _write(folder / "in.json", (EXAMPLES / case.get("example", "resultset-multi-attempt.json")).read_bytes())
    # a process of its own: rows are built from several threads, and the command line prints
    done = subprocess.run(
        [sys.executable, "-m", "evalschema", "export", "--to", to, "-o", str(cols), str(source)], capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    path = cols / f"{case.get('table', 'results')}.{to}"
    change = case["change"]
    if change == "empty":
        _write(path, b"")
    elif change == "cut":
        _write(path, path.read_bytes()[: -case["bytes"]])
    else:
        if to == "parquet":
            table = pq.read_table(path)
        else:
            with ipc.open_file(path) as reader:
                table = reader.read_all()
        if change in ("column", "json"):
            name = "_json" if change == "json" else case["column"]
            values = [case["value"]] * table.num_rows if change == "json" else case["values"]
            at = table.schema.get_field_index(name)
            array = pa.array(values, pa.type_for_alias(case.get("type", "string")))
            table = table.set_column(at, pa.field(name, array.type), array)
        elif change == "drop":
            table = table.drop_columns([case["column"]])
        elif change == "metadata":
            table = table.replace_schema_metadata({**(table.schema.metadata or {}), case["key"].encode(): case["value"].encode()})
        else:
            raise AssertionError(f"unknown change {change!r}")
        if to == "parquet":
            pq.write_table(table, path)
        else:
            with ipc.new_file(path, table.schema) as writer:
                writer.write_table(table)
    return {"in": str(cols), "out": str(folder / "back.jsonl")}


@builder
def patterned(folder: Path, case: dict[str, Any]) -> Built:
    """A result set (the multi-attempt example, ``rows`` copies of its first row with distinct attempts) whose row
    ``at`` (``-1``: the envelope) gets the member ``key``: ``"<key>": <prefix><unit × count><suffix>``, spliced in as
    text (strings of escapes, brackets inside strings, keys over the limit). ``key_count`` repeats the key's text
    instead (a key over the limit); ``cut`` removes that many bytes from the end; ``jsonl`` writes one result set per
    line (``jsonl_lines`` of them, the patterned one at line ``at_line``)."""
    document = example("resultset-multi-attempt.json")
    document.pop("summary", None)
    row = document.pop("results")[0]
    rows = [dict(row, attempt=n + 1) for n in range(case.get("rows", 3))]
    marker = {"__PATTERN__": 0}
    at = case.get("at", 1)
    if at < 0:
        document.update(marker)
    else:
        rows[at].update(marker)
    key = case.get("key", "zz") * case.get("key_count", 1)
    value = case.get("prefix", "") + case.get("unit", "") * case.get("count", 0) + case.get("suffix", "")
    text = json.dumps({**document, "results": rows}).replace('"__PATTERN__": 0', json.dumps(key) + ": " + value)
    if "cut" in case:
        text = text[: -case["cut"]]
    if case.get("jsonl"):
        plain = json.dumps({**example("resultset-multi-attempt.json"), "run_id": "plain"})
        lines = [plain] * case["jsonl_lines"]
        lines[case["at_line"] - 1] = text
        text = "\n".join(lines) + "\n"
    path = _write(folder / ("patterned.jsonl" if case.get("jsonl") else "patterned.json"), text)
    return {"in": str(path), "list": [str(path)]}
