"""A headless Streamlit client: one session over the app's own websocket protocol, no browser.

It speaks what the browser speaks: BackMsg protobufs (rerun_script with a ClientState: query
string, page hash, WidgetStates) and reads ForwardMsg protobufs (new_session, navigation,
delta, page_info_changed, script_finished). Widget ids come from the deltas' elements, keyed
by the widget's user key (the id ends with "-<key>"). Used by bench_load.py, bench_memory.py
and tests/deploy/. Loopback only.
"""
from __future__ import annotations

import asyncio
import html
import json
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

OK = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
CACHE_RUNS = 2  # the browser drops a cached message not used in this many runs
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class RunError(Exception):
    """A run that ended badly: exception on the page, timeout, or a dropped connection."""


@dataclass
class Run:
    """What one script run drew: markdown bodies, widget ids by key, exceptions, timing."""
    page: str
    seconds: float = 0.0
    markdown: list = field(default_factory=list)
    alerts: list = field(default_factory=list)       # (kind, body) of st.error/warning/info
    exceptions: list = field(default_factory=list)
    tables: list = field(default_factory=list)       # st.dataframe contents (pandas)
    status: int | None = None
    options: dict = field(default_factory=dict)      # a radio's key -> its options as shown
    fragments: dict = field(default_factory=dict)    # auto-rerun fragment id -> interval (s)
    starts: int = 0   # script runs the server began for this request (a run cut short counts)
    stepped: list = field(default_factory=list)      # ui/stepped.py's blocks: their data (slides per step)

    def stepped_text(self, step: int) -> list[str]:
        """The words every stepped block of this run shows at `step` (tags dropped), where it carries it."""
        out = []
        for d in self.stepped:
            k = step - d["first"]
            if 0 <= k < len(d["slides"]):
                out.append(html.unescape(re.sub(r"<[^>]*>", "", d["slides"][k])))
        return out

    def text(self) -> str:
        return "\n".join(self.markdown + [b for _, b in self.alerts])


def check_loopback(base: str) -> None:
    host = urllib.parse.urlsplit(base).hostname
    if host not in LOOPBACK:
        raise ValueError(f"Only loopback servers are driven by this client, not {host!r}.")


def fetch_cookie(base: str, timeout: float = 10.0) -> str:
    """GET / as a browser does first; returns the Cookie header a load balancer asked for."""
    with urllib.request.urlopen(base + "/", timeout=timeout) as resp:
        cookies = [c.split(";", 1)[0] for c in resp.headers.get_all("Set-Cookie") or []]
    return "; ".join(cookies)


class Session:
    """One learner. `await s.connect(); run = await s.rerun(page="hidden", widgets={...})`."""

    def __init__(self, base: str, timeout: float = 120.0, query: str = "model=default",
                 browser: bool = False):
        """query: the link's query string of the first run; by default the word-level model,
        the one bench/oracle.py computes the expected numbers on (a bare link opens the
        subword start model). browser=True: also do what a browser's page does that changes the
        server's work: a widget drawn in a fragment reruns that fragment alone, and messages
        seen in the last CACHE_RUNS runs are named by hash (the server sends a reference)."""
        check_loopback(base)
        self.browser = browser
        self.fragments: dict[str, str] = {}   # widget key -> the fragment that drew it (browser)
        self.cache: dict[str, tuple] = {}     # message hash -> (run number, message) (browser)
        self.runs = 0
        self.references = 0                   # messages received as a reference to the cache
        self._fragment_next = ""              # set_widget of a fragment's widget: rerun it alone
        self.base, self.timeout = base.rstrip("/"), timeout
        self.ws = None
        self.cookie = ""
        self.session_id = ""
        self.pages: dict[str, str] = {}       # url path ("" = overview) -> page_script_hash
        self.widget_ids: dict[str, str] = {}  # user key -> element id
        self.states: dict[str, tuple] = {}    # user key -> (field, value)
        self.query = query
        self.current_page = ""
        self.seen: set[str] = set()           # widget keys drawn by the last run

    async def connect(self, cookie: str | None = None, resume: bool = False) -> None:
        """Open the websocket. resume=True asks for this session back, as a browser does after
        a dropped connection: only the process that holds the session can give it back."""
        try:
            self.cookie = fetch_cookie(self.base) if cookie is None else cookie
            url = "ws" + self.base[len("http"):] + "/_stcore/stream"
            headers = {"Cookie": self.cookie} if self.cookie else {}
            resumed = ["xsrf-unused", self.session_id] if resume and self.session_id else []
            self.ws = await websockets.connect(url, subprotocols=["streamlit"] + resumed,
                                               max_size=None, additional_headers=headers,
                                               open_timeout=30, ping_interval=None)
        except (OSError, TimeoutError, websockets.InvalidHandshake) as err:  # 503, refused...
            raise RunError(f"cannot connect: {type(err).__name__}: {err}") from err

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    def set_widget(self, key: str, value) -> None:
        """Queue a widget value for the next run (the browser sends all of them each run)."""
        if isinstance(value, bool):
            self.states[key] = ("bool_value", value)
        elif isinstance(value, str):
            self.states[key] = ("string_value", value)
        elif isinstance(value, (list, tuple)):
            self.states[key] = ("double_array_value", [float(v) for v in value])
        elif isinstance(value, int):
            self.states[key] = ("int_value", value)
        else:
            self.states[key] = ("double_value", float(value))
        if self.browser and key in self.fragments:
            self._fragment_next = self.fragments[key]

    def _client_state(self, msg: BackMsg, page: str, trigger: str | None) -> None:
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_script_hash = self.pages.get(page, "")
        cs.context_info.url = f"{self.base}/{page}"
        for key, (kind, value) in self.states.items():
            if key not in self.widget_ids or key not in self.seen:
                continue  # the browser sends the widgets on screen only
            ws = cs.widget_states.widgets.add()
            ws.id = self.widget_ids[key]
            if kind == "double_array_value":
                ws.double_array_value.data.extend(value)
            else:
                setattr(ws, kind, value)
        if trigger is not None and trigger in self.widget_ids:
            ws = cs.widget_states.widgets.add()
            ws.id = self.widget_ids[trigger]
            ws.trigger_value = True
        if self.browser:
            cs.cached_message_hashes.extend(sorted(self.cache))

    async def rerun(self, page: str | None = None, click: str | None = None,
                    wait: bool = True, fragment: str | None = None) -> Run:
        """Run the script (on `page`, default: the current one) and wait for script_finished.
        fragment: run only that fragment, as the browser's timer does for st.fragment(run_every=)
        (its id from an earlier Run.fragments); a fragment that calls st.rerun() runs the page."""
        page = self.current_page if page is None else page
        alone = self._fragment_next if page == self.current_page and click is None else ""
        self._fragment_next = ""
        self.current_page = page
        self.runs += 1
        msg = BackMsg()
        self._client_state(msg, page, click)
        if fragment is not None:
            msg.rerun_script.fragment_id = fragment
            msg.rerun_script.is_auto_rerun = True
        elif alone:
            msg.rerun_script.fragment_id = alone
        run = Run(page)
        if fragment is None and not alone:  # a fragment's run redraws its own widgets only
            self.seen = set()
        start = time.perf_counter()
        try:
            await self.ws.send(msg.SerializeToString())
            if wait:
                await asyncio.wait_for(self._read_until_finished(run), self.timeout)
        except (TimeoutError, websockets.ConnectionClosed, OSError) as err:
            raise RunError(f"{type(err).__name__}: {err}") from err
        run.seconds = time.perf_counter() - start
        if self.browser:
            self.cache = {h: v for h, v in self.cache.items() if self.runs - v[0] < CACHE_RUNS}
        if run.exceptions:
            raise RunError("exception on the page: " + run.exceptions[0][:200])
        return run

    async def _read_until_finished(self, run: Run) -> None:
        while True:
            raw = await self.ws.recv()
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            kind = fwd.WhichOneof("type")
            if self.browser:
                fwd = self._through_cache(raw, fwd)
                kind = fwd.WhichOneof("type")
            if kind == "new_session":
                run.starts += 1
                self.session_id = fwd.new_session.initialize.session_id or self.session_id
            elif kind == "navigation":
                self.pages.update({p.url_pathname: p.page_script_hash
                                   for p in fwd.navigation.app_pages})
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "delta":
                self._read_delta(fwd.delta, run)
            elif kind == "auto_rerun":
                run.fragments[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "script_finished":
                run.status = fwd.script_finished
                if fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    return

    def _through_cache(self, raw: bytes, fwd: ForwardMsg) -> ForwardMsg:
        """As the browser's message cache (browser=True): a cacheable message is kept for this
        run; a reference to a kept one gives that message back."""
        if fwd.WhichOneof("type") == "ref_hash" and fwd.ref_hash in self.cache:
            ref = fwd.ref_hash
            self.references += 1
            self.cache[ref] = (self.runs, self.cache[ref][1])
            fwd = ForwardMsg()
            fwd.ParseFromString(self.cache[ref][1])
        elif fwd.metadata.cacheable and fwd.hash:
            self.cache[fwd.hash] = (self.runs, raw)
        return fwd

    def _read_delta(self, delta, run: Run) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        el = delta.new_element
        kind = el.WhichOneof("type")
        if kind is None:
            return
        body = getattr(el, kind)
        if kind == "markdown":
            run.markdown.append(body.body)
        elif kind == "alert":
            run.alerts.append((body.format, body.body))
        elif kind == "dataframe" and body.arrow_data.data:
            run.tables.append(_arrow_frame(body.arrow_data.data))
        elif kind == "metric":
            run.markdown.append(f"{body.label}: {body.body}")
        elif kind == "exception":
            run.exceptions.append(f"{body.type}: {body.message}")
        elif kind == "bidi_component" and body.component_name == "rnnviz_stepped":
            run.stepped.append(json.loads(body.bytes))
        wid = getattr(body, "id", "")
        if isinstance(wid, str) and wid.startswith("$$ID-"):
            key = wid.split("-", 2)[2] if wid.count("-") >= 2 else ""
            if key and kind == "radio":
                run.options[key] = list(body.options)
            if key:
                self.widget_ids[key] = wid
                self.seen.add(key)
                if self.browser and delta.fragment_id:
                    self.fragments[key] = delta.fragment_id


def _arrow_frame(data: bytes):
    import pyarrow as pa
    return pa.ipc.open_stream(data).read_all().to_pandas()


HMAX = re.compile(r"largest \|h\| is (-?[\d.]+(?:e[-+]?\d+)?|nan|NaN|inf), at step (\d+)")


def overview_numbers(run: Run) -> tuple[float, int] | None:
    """(largest |h|, its step) as the overview page printed them."""
    m = HMAX.search(run.text())
    return (float(m.group(1)), int(m.group(2))) if m else None
