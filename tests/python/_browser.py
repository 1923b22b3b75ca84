"""Headless Chromium driven over the DevTools protocol, for the tests of the HTML report and of
the documentation site (imported as ``_browser``).

The browser is Debian's, unpacked by ``make chromium`` (``testdata/chromium.py``) and found at
``$FLASHPRESS_CHROMIUM`` (the Makefile sets it), else ``target/chromium/chromium`` of this source
tree. It runs with ``--remote-debugging-pipe``: commands go in on its file descriptor 3 and
answers and events come out on 4, each a JSON message ended by a NUL byte, so no port, socket
or WebSocket library is needed. A :class:`Page` collects what the page reports as it loads
(console errors and assertions, uncaught exceptions, failed resource loads and other error log
entries) and can evaluate JavaScript and take a screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import io
import itertools
import json
import os
import queue
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
#: How long one protocol command (a page load included) may take.
TIMEOUT_S = 60.0


class BrowserError(Exception):
    """The browser is missing, did not start, or did not answer."""


def chromium_path() -> Path:
    env = os.environ.get("FLASHPRESS_CHROMIUM")
    path = Path(env) if env else REPO / "target" / "chromium" / "chromium"
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise BrowserError(
            f"no Chromium at {path}: run `make chromium` (it unpacks Debian's chromium into target/chromium; "
            "`make test` does it), or point FLASHPRESS_CHROMIUM at a chromium executable"
        )
    return path


class Browser:
    """One headless Chromium process and its protocol pipe."""

    def __init__(self, width: int = 1280, height: int = 900) -> None:
        self.width, self.height = width, height
        self._ids = itertools.count(1)
        self._answers: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._profile = tempfile.TemporaryDirectory(prefix="flashpress-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # Chromium's ends, moved above 9 so that putting them on 3 and 4 cannot overwrite one
        # with the other (the shell below does that; bash, since dash takes one-digit descriptors).
        ends = []
        for fd in (to_browser_r, from_browser_w):
            ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
            os.close(fd)
        to_browser_r, from_browser_w = ends
        args = [
            str(chromium_path()),
            "--headless",
            "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--mute-audio",
            "--hide-scrollbars",
            f"--window-size={width},{height}",
            f"--user-data-dir={self._profile.name}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        # The shell moves the pipe ends to descriptors 3 and 4, where Chromium expects them.
        script = f'exec 3<&{to_browser_r} 4>&{from_browser_w} {to_browser_r}<&- {from_browser_w}>&-; exec "$@"'
        self._proc = subprocess.Popen(
            ["/bin/bash", "-c", script, "bash", *args],
            pass_fds=(to_browser_r, from_browser_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read_stderr, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()
        try:
            self.version = self.send("Browser.getVersion")["product"]
        except BaseException:
            self.close()
            raise

    def _read_stderr(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            self._stderr.append(line)

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._lock:
                    for q in self._answers.values():
                        q.put({"error": {"message": "the browser closed its pipe"}})
                return
            buf += chunk
            *messages, buf = buf.split(b"\0")
            for raw in messages:
                msg = json.loads(raw)
                if "id" in msg:
                    with self._lock:
                        q = self._answers.get(msg["id"])
                    if q is not None:
                        q.put(msg)
                else:
                    with self._lock:
                        self._events.append(msg)

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send a command and wait for its answer; BrowserError on a protocol error."""
        n = next(self._ids)
        q: queue.Queue[dict[str, Any]] = queue.Queue()
        with self._lock:
            self._answers[n] = q
        msg: dict[str, Any] = {"id": n, "method": method, "params": params}
        if session is not None:
            msg["sessionId"] = session
        try:
            os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        except OSError as e:
            raise BrowserError(f"{method}: cannot write to the browser ({e}); {self._log()}") from None
        try:
            answer = q.get(timeout=TIMEOUT_S)
        except queue.Empty:
            raise BrowserError(f"{method}: no answer in {TIMEOUT_S:g} s; {self._log()}") from None
        finally:
            with self._lock:
                del self._answers[n]
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error'].get('message')}; {self._log()}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def events(self, session: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self._events if session is None or e.get("sessionId") == session]

    def _log(self) -> str:
        text = b"".join(self._stderr[-20:]).decode(errors="replace").strip()
        return f"browser exit code {self._proc.poll()}, its last output: {text or '(none)'}"

    def open(self, url: str) -> Page:
        """A new tab showing ``url``, loaded (its load event fired)."""
        return Page(self, url)

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                os.write(self._to_browser, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
                self._proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    """A tab attached with its own protocol session."""

    def __init__(self, browser: Browser, url: str) -> None:
        self.browser = browser
        target = browser.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=browser.width,
            height=browser.height,
            deviceScaleFactor=1,
            mobile=False,
        )
        nav = self.send("Page.navigate", url=url)
        if nav.get("errorText"):
            raise BrowserError(f"{url}: {nav['errorText']}")
        deadline = time.monotonic() + TIMEOUT_S
        while not any(e["method"] == "Page.loadEventFired" for e in browser.events(self.session)):
            if time.monotonic() > deadline:
                raise BrowserError(f"{url}: not loaded in {TIMEOUT_S:g} s")
            time.sleep(0.02)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.send(method, self.session, **params)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (awaited when it is a promise), or BrowserError
        with the exception it threw."""
        r = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise BrowserError(f"{expression[:80]}...: {d.get('exception', {}).get('description') or d.get('text')}")
        return r["result"].get("value")

    def errors(self) -> list[str]:
        """What the page reported as errors so far: console errors and failed assertions,
        uncaught exceptions, and error entries of the browser's log (a resource that failed to
        load, a blocked request, ...)."""
        out = []
        for e in self.browser.events(self.session):
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                out.append(f"console.{p['type']}: {args}")
            elif e["method"] == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append(f"exception: {d.get('exception', {}).get('description') or d.get('text')}")
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                entry = p["entry"]
                out.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".strip())
        return out

    def screenshot(self, full_page: bool = False) -> bytes:
        """A PNG of the viewport (or the whole page)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 16384), "scale": 1}
        return base64.b64decode(self.send("Page.captureScreenshot", **params)["data"])


def blank_reason(png: bytes) -> str | None:
    """Why a screenshot looks blank (None when it does not): almost every pixel one colour, or
    too little contrast to be text and figures."""
    from PIL import Image, ImageStat

    img = Image.open(io.BytesIO(png)).convert("L")
    hist = img.histogram()
    top = max(hist) / sum(hist)
    spread = ImageStat.Stat(img).stddev[0]
    if top > 0.985:
        return f"{top:.1%} of the pixels are one colour"
    if spread < 8:
        return f"grey levels spread by {spread:.1f} only"
    return None
