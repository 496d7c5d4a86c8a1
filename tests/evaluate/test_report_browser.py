"""report.html in headless Chromium (Debian's `chromium`): it renders, every plot shows drawn
marks, and the page makes no network request.

Blankness: the whole page's screenshot must have a substantial share of non-background pixels,
and each plot, laid out alone in a box of known place on a second page, must show coloured
(saturated) pixels inside its box, while the gaps between the boxes stay background, which
shows the check can tell drawn from blank.

Network: Chromium's own net log (`--log-net-log`). Chromium itself phones home (component
updates, network time, account checks) however it is started; those requests have no initiating
origin ("not an origin"), while every request a page makes carries the page's origin (`null`
for a file) and a `file://` isolation key. A control page with one http image proves that such a
request is seen; the report must make none but file:, data:, about: or chrome-internal ones.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")
pytest.importorskip("scipy")

import numpy as np
from matplotlib.image import imread

from smellkit.evaluate.reports import CSP, write_reports
from tests.evaluate.synthetic_scores import synthetic_scores

pytestmark = pytest.mark.slow

LOCAL_SCHEMES = ("file:", "data:", "about:", "chrome:", "chrome-extension:", "chrome-search:",
                 "chrome-untrusted:", "devtools:", "blob:")
BOX_WIDTH, BOX_HEIGHT, GAP = 720, 420, 40


def _chromium() -> str | None:
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


@pytest.fixture(scope="module")
def browser() -> str:
    found = _chromium()
    if found is None:
        pytest.skip("chromium is not installed (CI installs Debian's `chromium` package; "
                    "locally: apt-get install -y chromium)")
    return found


def render(browser: str, page: Path, work: Path, width: int, height: int) -> tuple[Any, dict[
        str, Any]]:
    """Screenshot `page` headless; the screenshot as an RGB(A) float array and the net log."""
    work.mkdir(parents=True, exist_ok=True)
    shot, log = work / "screenshot.png", work / "netlog.json"
    command = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND",
        f"--user-data-dir={work / 'profile'}", f"--screenshot={shot}",
        f"--window-size={width},{height}", f"--log-net-log={log}", page.resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)
    assert shot.is_file(), f"no screenshot (exit {done.returncode}): {done.stderr[-2000:]}"
    return imread(str(shot)), json.loads(log.read_text(encoding="utf-8"))


def page_requests(net_log: dict[str, Any]) -> list[str]:
    """URLs of the requests made for the page (not Chromium's own background requests)."""
    names = {number: name for name, number in net_log["constants"]["logEventTypes"].items()}
    found = []
    for event in net_log["events"]:
        params = event.get("params") or {}
        if names.get(event["type"]) != "URL_REQUEST_START_JOB" or "url" not in params:
            continue
        initiator = str(params.get("initiator", ""))
        isolation = str(params.get("network_isolation_key", ""))
        if initiator != "not an origin" or "file://" in isolation:
            found.append(str(params["url"]))
    return found


def _not_background(pixels: Any) -> Any:
    rgb = pixels[..., :3]
    return np.any(np.abs(rgb - 1.0) > 0.04, axis=-1)


def _coloured(pixels: Any) -> Any:
    rgb = pixels[..., :3]
    return (rgb.max(axis=-1) - rgb.min(axis=-1)) > 0.25


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browser-report")
    return write_reports(folder, synthetic_scores(cases=3)).report_html


def test_the_report_renders_and_fetches_nothing(browser: str, report: Path,
                                                tmp_path: Path) -> None:
    pixels, net_log = render(browser, report, tmp_path / "report", 1400, 4000)
    assert pixels.shape[:2] == (4000, 1400)
    drawn = _not_background(pixels)
    assert drawn.mean() > 0.05, f"only {drawn.mean():.1%} of the page differs from white"
    assert _coloured(pixels).sum() > 20_000  # the plots' bars and points, not just text
    requests = page_requests(net_log)
    assert [url for url in requests if not url.startswith(LOCAL_SCHEMES)] == []


def test_the_network_check_sees_a_page_request(browser: str, tmp_path: Path) -> None:
    """The control: an http image on a file page is found by `page_requests`."""
    probe = tmp_path / "probe.html"
    probe.write_text('<!DOCTYPE html><html><body><p>probe</p>'
                     '<img src="http://127.0.0.1:9/probe.png" alt="probe"></body></html>')
    _, net_log = render(browser, probe, tmp_path / "probe", 400, 300)
    assert "http://127.0.0.1:9/probe.png" in page_requests(net_log)


def test_every_plot_is_drawn(browser: str, report: Path, tmp_path: Path) -> None:
    svgs = re.findall(r"<svg\b.*?</svg>", report.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(svgs) == 10
    boxes = "".join(
        f'<div style="position:absolute;left:20px;top:{index * (BOX_HEIGHT + GAP) + GAP}px;'
        f'width:{BOX_WIDTH}px;height:{BOX_HEIGHT}px">{svg}</div>'
        for index, svg in enumerate(svgs))
    page = tmp_path / "plots.html"
    page.write_text(
        f'<!DOCTYPE html><html><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<style>body{{margin:0;background:#fff}} svg{{width:{BOX_WIDTH}px;"
        f"height:{BOX_HEIGHT}px;display:block}}</style></head><body>{boxes}</body></html>",
        encoding="utf-8")
    height = len(svgs) * (BOX_HEIGHT + GAP) + GAP
    pixels, net_log = render(browser, page, tmp_path / "plots", BOX_WIDTH + 40, height)
    for index in range(len(svgs)):
        top = index * (BOX_HEIGHT + GAP) + GAP
        box = pixels[top:top + BOX_HEIGHT, 20:20 + BOX_WIDTH]
        gap = pixels[top - GAP + 4:top - 4, :]
        assert _not_background(box).mean() > 0.03, f"plot {index + 1} is blank"
        assert _coloured(box).sum() > 300, f"plot {index + 1} has no coloured marks"
        assert not _not_background(gap).any(), f"the gap above plot {index + 1} is not blank"
    assert [url for url in page_requests(net_log) if not url.startswith(LOCAL_SCHEMES)] == []
