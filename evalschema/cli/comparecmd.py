"""``evalschema compare BASE NEW``: is NEW better than BASE, or is it noise? (SPEC.md §12)

Pairs the rows of two result sets by test case and attempt, reports the paired statistics (McNemar's test,
Wilson and Newcombe intervals, a seeded bootstrap per grader), every difference that makes the runs not
comparable, and the flipped cases. Both result sets are validated as they are read: one that is not valid is
refused with its findings (``--force`` compares it all the same, under a warning). Exit status: 0 done (and the
gate passed) · 1 a result set is not valid (also with ``--force``), or ``--fail-on-regression`` and the pass rate
dropped significantly at ``--alpha`` or by more than ``--max-drop`` · 2 usage error, an unreadable result set, or
(with ``--strict``) runs that are not comparable.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalschema_models import constants

from ..core.display import terminal_line
from .common import EXIT_INVALID  # a result set that is not valid: nothing is compared

EXIT_OK, EXIT_REGRESSION, EXIT_USAGE = 0, 1, 2


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1: {text!r}")
    return value


def _drop(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a fraction of 1 (0.02 is 2 points): {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from ..io.gate import Outputs

    # the output gate first: a refused --html target is refused before any work, and nothing is written unless
    # the whole comparison is
    with Outputs([args.html] if args.html is not None else [], inputs=[args.base, args.new]) as outputs:
        return _run(args, outputs)


def _run(args: argparse.Namespace, outputs: Any) -> int:
    from ..compare import Options, Unreadable, compare_checked, suite_digest
    from ..compare.render import render_markdown, render_text
    from ..core.display import display_path, finite, visible
    from ..io.loader import load_path
    from ..report.comparehtml import render_compare_html as render_html

    digest = None
    if args.suite is not None:
        loaded = next(iter(load_path(args.suite)))
        if loaded.problem is not None:
            sys.stderr.write(
                f"evalschema: {visible(display_path(loaded.path))}: {loaded.problem.code}: {visible(loaded.problem.message)}\n"
            )
            return EXIT_USAGE
        digest = suite_digest(loaded.document)
    options = Options(
        alpha=args.alpha,
        seed=args.seed,
        resamples=args.resamples,
        grader=args.grader,
        max_drop=args.max_drop,
        suite_digest=digest,
        strict=args.strict,
    )
    try:
        document, refused = compare_checked(args.base, args.new, options)
    except Unreadable as problem:
        sys.stderr.write(
            f"evalschema: {visible(display_path(str(problem.path)))}: {problem.finding.code}: {visible(problem.finding.message)}\n"
        )
        return EXIT_USAGE
    if refused:
        _refused(args, refused, compared=args.force and document is not None)
        if not args.force or document is None:
            return EXIT_INVALID
    assert document is not None
    if args.html is not None:
        outputs.write(args.html, render_html(document).encode("utf-8"))
    if args.format == "json":
        sys.stdout.write(json.dumps(finite(document), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(document))
    else:
        sys.stdout.write(render_text(document))
    if args.strict and document["findings"]:
        sys.stderr.write(f"evalschema: the runs are not comparable ({len(document['findings'])} finding(s)); --strict refuses\n")
        return EXIT_USAGE
    if refused:
        return EXIT_INVALID  # compared under --force: the numbers are shown, the status stays that of an invalid input
    if args.fail_on_regression and document["verdict"]["gate_failed"]:
        return EXIT_REGRESSION
    return EXIT_OK


def _refused(args: argparse.Namespace, refused: list[tuple[str, Any]], *, compared: bool) -> None:
    """The findings of the result sets that are not valid, as ``validate`` reports them (text, or its JSON report
    when nothing else is printed on standard output), and what was made of them."""
    from ..report.json_report import entry
    from ..report.text import render_text

    entries = [entry(path, None, report) for path, report in refused]
    totals = {"files": len(entries), "valid": 0, "invalid": len(entries), "unreadable": 0}
    if args.format == "json" and not compared:
        sys.stdout.write(
            json.dumps({"files": [e.to_dict() for e in entries], "summary": totals}, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        )
    else:  # with --force and --format json, standard output holds the comparison document alone
        stream = sys.stdout if args.format == "text" else sys.stderr
        stream.write(render_text(entries, totals, stream, verbosity=-1))
    verdict = (
        "compared anyway (--force): its numbers may be ones the specification makes impossible"
        if compared
        else ("nothing compared (use --force to compare anyway)")
    )
    sys.stderr.write(f"evalschema: {len(entries)} invalid result set(s): {verdict}\n")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``compare`` on the ``evalschema`` command's subparsers; the handler is ``args.handler``."""
    from ..compare.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

    p: argparse.ArgumentParser = subparsers.add_parser(
        "compare",
        help="did NEW really get better than BASE? paired statistics, comparability, a CI gate",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("base", type=Path, metavar="BASE", help="the result set compared against")
    p.add_argument("new", type=Path, metavar="NEW", help="the result set being judged")
    p.add_argument("--suite", type=Path, metavar="S", help="the suite both ran: its digest is checked against each run's suite_digest")
    p.add_argument("--grader", metavar="ID", help="judge rows by this grader's verdict instead of their passed")
    p.add_argument("--alpha", type=_fraction, default=0.05, help="significance level (default 0.05; intervals at 1 - alpha)")
    p.add_argument("--seed", type=_count, default=DEFAULT_SEED, help=f"bootstrap seed (default {DEFAULT_SEED})")
    p.add_argument(
        "--resamples", type=_count, default=DEFAULT_RESAMPLES, help=f"bootstrap resamples (default {DEFAULT_RESAMPLES}; 0: normal interval)"
    )
    p.add_argument(
        "--fail-on-regression", action="store_true", help="exit 1 when the pass rate dropped significantly (or by more than --max-drop)"
    )
    p.add_argument(
        "--max-drop",
        type=_drop,
        metavar="FRACTION",
        help="with --fail-on-regression: also fail on a drop larger than this (0.02 = 2 points)",
    )
    p.add_argument("--strict", action="store_true", help="refuse (exit 2) when the runs are not comparable")
    p.add_argument(
        "--force", action="store_true", help="compare result sets that are not valid all the same (their findings are printed; exit 1)"
    )
    p.add_argument(
        "--format",
        choices=constants.OUTPUT_FORMATS["compare"],
        default=constants.OUTPUT_FORMATS["compare"][0],
        help="markdown: for $GITHUB_STEP_SUMMARY or a pull request comment",
    )
    p.add_argument("--html", type=Path, metavar="REPORT.html", help="also write a self-contained HTML comparison report")
    p.set_defaults(handler=run)
    return p


# --- pass@k, pass^k and the flip rate in ``evalschema summarize`` (SPEC §12.5) ------------------------------


def attempt_statistics_of(results: list[tuple[str, dict[str, Any], Any]], known: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """For each summarized result set whose rows carry ``attempt``: its pass@k, pass^k and flip rate, by label —
    ``known`` when found while it was read; else from its rows in hand, or read again (in pieces)."""
    from ..compare import attempt_statistics

    out: dict[str, dict[str, Any]] = {}
    for label, document, summary in results:
        if summary.attempts is None:
            continue
        found = known[label] if label in known else attempt_statistics(document if "results" in document else Path(label))
        if found is not None:
            out[label] = found
    return out


def attempt_text(statistics: dict[str, dict[str, Any]]) -> str:
    """One line per result set: the flip rate and pass@k / pass^k for the first k."""
    lines = []
    for label, found in statistics.items():
        flip = "n/a" if found["flip_rate"] is None else f"{100 * found['flip_rate']:.1f} %"
        ks = ", ".join(f"pass@{e['k']} {100 * e['pass_at_k']:.1f} % pass^{e['k']} {100 * e['pass_hat_k']:.1f} %" for e in found["by_k"][:5])
        lines.append(terminal_line(f"{label}: attempts: flip rate {flip} over {found['multi_attempt_cases']} test case(s); {ks}") + "\n")
    return "".join(lines)
