"""Helpers of the HTML report tests: the data a page embeds, and headless Chromium (which .ci/run installs) to read
back what the page's script drew."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tools import missing_tool

DATA_OPEN = '<script type="application/json" id="evalschema-data">'


def page_data(page: str) -> Any:
    """The report data a page embeds (JSON in its data script element)."""
    start = page.index(DATA_OPEN) + len(DATA_OPEN)
    return json.loads(page[start : page.index("</script>", start)])


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI (.ci/run installs Debian's chromium)")
        missing_tool("chromium is not installed")
    return found


def flags(tmp_path: Path) -> list[str]:
    return [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]


def probe(browser: str, page: Path, tmp_path: Path, script: str, size: str = "1400,3000") -> Any:
    """Run ``script`` (an expression) in ``page`` after its own script drew it; its value, as JSON."""
    probed = tmp_path / ("probed-" + page.name)
    code = (
        '<script>window.addEventListener("load", () => { const pre = document.createElement("pre"); pre.id = "probe";'
        f" pre.textContent = JSON.stringify(({script})); document.body.append(pre); }});</script>"
    )
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", code + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [browser, *flags(tmp_path), f"--window-size={size}", "--virtual-time-budget=5000", "--dump-dom", probed.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    start = dom.stdout.index('<pre id="probe">') + len('<pre id="probe">')
    import html

    return json.loads(html.unescape(dom.stdout[start : dom.stdout.index("</pre>", start)]))


def screenshot(browser: str, page: Path, tmp_path: Path, size: str = "1200,1600") -> Path:
    shot = tmp_path / (page.stem + ".png")
    subprocess.run(
        [browser, *flags(tmp_path), f"--window-size={size}", f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120
    )
    return shot
