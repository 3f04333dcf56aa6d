"""Open pages of the built site in headless Chromium (Debian's ``chromium``) and fail on a blank
page, a broken image or a console error: ``python docs/hooks/browser_check.py SITE PAGE...``.

No browser is downloaded: the system's Chromium runs with the flags a closed network needs, the
DOM it renders is read back (``--dump-dom``), and its log is scanned for console errors and
resources that failed to load.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--allow-file-access-from-files",
    "--enable-logging=stderr",
    "--v=1",  # console messages are logged from level 1
    "--virtual-time-budget=3000",
]
#: What Chromium logs for a console message (it logs every level the same way; the site logs
#: none, so any message fails the page) or a resource it could not load.
FAILURES = re.compile(r":CONSOLE[:(]\d+\)?\] |Failed to load resource")


class Page(HTMLParser):
    """The text and the image sources of a rendered DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.images: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        if tag == "img":
            self.images += [value for name, value in attrs if name == "src" and value]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)


def check(browser: str, site: Path, page: str) -> list[str]:
    path = (site / page).resolve()
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", path.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
        )
    problems = [
        f"{page}: {line.strip()}" for line in done.stderr.splitlines() if FAILURES.search(line)
    ]
    dom = Page()
    dom.feed(done.stdout)
    words = " ".join("".join(dom.text).split())
    if len(words) < 200:
        problems.append(f"{page}: blank page ({len(words)} characters of text)")
    for source in dom.images:
        if source.startswith(("data:", "http:", "https:")):
            continue
        target = (path.parent / source.split("#")[0].split("?")[0]).resolve()
        if not target.is_file():
            problems.append(f"{page}: broken image {source}")
    return problems


def main(argv: list[str]) -> int:
    site, pages = Path(argv[0]), argv[1:]
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("docs-browser needs Debian's chromium: apt-get install chromium", file=sys.stderr)
        return 2
    problems = [problem for page in pages for problem in check(browser, site, page)]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(pages)} pages opened in {browser}: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
