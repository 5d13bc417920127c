"""Server time and bytes of every page on a REAL server, over Streamlit's websocket protocol.

    python bench/bench_pages.py [--app-root DIR ...] [--repeat 10] [--pages embedding,hidden]
                                [--langs en,zh] [--controls "step slider"] [--json FILE]
                                [--profile [--top 25]] [--list] [--elements]

For each app root (default: this checkout; give --app-root several times to compare checkouts
in one run), for each language (a fresh `streamlit run` per root and language, on 127.0.0.1
and a free port), for each page (pages/*.py, in the navigation's order):

- cold load: the first visit of that page after the server started (a new session whose first
  run opens the page's URL, as a browser tab does). The first page, the overview, also pays
  the app's imports and the built-in models' loading;
- warm load: the next --warm-repeat visits, each by a new session;
- each main control of the page (CONTROLS below: the first step slider, a preset button, a
  radio or select box), changed --repeat times in the last warm session (values cycle so each
  change is a real change; a button is clicked --repeat times).

Server time = from sending the rerun BackMsg (bench/stclient.py) to receiving the ForwardMsg
script_finished for that run (on loopback, so it is the server's time plus ~1 ms of transport);
p50 and p95 are nearest-rank over the repeats (with 10 repeats p95 is the largest).
Bytes = the sum of the websocket messages' sizes received for that run. The client keeps a
browser's message cache: it reports the hashes of the cacheable messages it holds
(cached_message_hashes, kept for 2 runs as the frontend does), so an unchanged large element
comes back as a small reference, as in Chromium. The link's query string is `lang=<lang>`
only: the start model and sentence.

--profile runs the server under bench/profile_server.py (cProfile around each script run) and
prints, per page, the top cumulative costs of its step-slider move (or of each of --controls;
averaged over the repeats) and the self time by library. Profiled timings are inflated; the
table of a --profile run is not the before / after table.

Bounded: at most 20 repeats, --max-seconds (default 1,800 s) of measuring per run, after which
the remaining measurements are skipped and marked; every run times out after --timeout s.
Not a test: it prints figures; nothing asserts on them.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from bench.appserver import app_server, warm_bytecode  # noqa: E402
from bench.stclient import RunError, Session  # noqa: E402

# (page name, url path) in the navigation's order; "" is the overview (the default page)
PAGES = (("home", ""), ("embedding", "embedding"), ("hidden", "hidden"), ("output", "output"),
         ("bptt", "bptt"), ("slots", "slots"), ("train", "train"), ("origins", "origins"),
         ("gates", "gates"), ("glossary", "glossary"))
# page -> [(what, widget key)]: the first step slider, a preset button, a radio / select box.
# The kind and the values come from the element the page drew (a missing key is reported).
CONTROLS = {
    "home": [("new sentence (sidebar)", "text"), ("trace table select box", "home_trace_table")],
    "embedding": [("step slider", "emb_step"), ("update rule radio", "emb_rule"),
                  ("learning-rate slider", "emb_lr")],
    "hidden": [("step slider", "hid_step"), ("notes preset button", "hid_scalar_preset"),
               ("variant radio", "hid_cell")],
    "output": [("step slider", "out_step"), ("decoding radio", "out_strategy"),
               ("sum/mean radio", "out_batch_red")],
    "bptt": [("step slider", "bptt_step"), ("W_h scale preset button", "bptt_preset_explode"),
             ("norm order radio", "bptt_ord")],
    "slots": [("step slider", "slot_force_step"), ("sentence select box", "slot_source"),
              ("confusion-matrix select box", "slot_cm_tagger")],
    "train": [("tokens/characters radio", "train_level"), ("source radio", "train_source")],
    "origins": [("step slider", "origins_centre"), ("merge slider", "origins_merge"),
                ("source radio", "origins_source")],
    "gates": [("step slider", "gates_step"), ("LSTM/GRU radio", "gates_cell")],
    "glossary": [("search box", "glossary_q")],
}
# A control drawn inside a folded expander (issue 24: closed, it computes nothing): measured in
# a session whose link opens that expander (widget key -> the expander's key).
FOLDED = {"hid_cell": "hid_variants"}
# Text widgets: the values typed, in turn (per language).
TYPED = {("text", "en"): ("I like cats today", "you like dogs"),
         ("text", "zh"): ("我喜欢猫", "你喜欢狗"),
         ("glossary_q", "en"): ("hidden", "gradient"), ("glossary_q", "zh"): ("隐藏", "梯度")}
WIDGET_KINDS = {"slider", "radio", "selectbox", "button", "checkbox", "button_group", "number_input",
                "text_input", "text_area", "select_slider", "toggle", "multiselect", "download_button",
                "file_uploader"}
MAX_REPEAT = 20


def pct(values, q: float) -> float:
    """The q-quantile (nearest rank) of values; NaN if none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


class BenchSession(Session):
    """A Session that counts the bytes of each run, keeps a browser's message cache (Session's,
    browser=True), opens its first page by URL path (page_name) and remembers every widget
    element by key."""

    def __init__(self, base: str, lang: str, timeout: float, extra: str = ""):
        super().__init__(base, timeout=timeout, query=f"lang={lang}{extra}", browser=True)
        self.elements: dict[str, tuple[str, object]] = {}  # key -> (kind, proto)
        self.fragments: dict[str, str] = {}  # key -> the fragment a widget is drawn in
        self.fragment_id = ""  # the next run: a fragment's rerun (as the browser asks for it)

    def _client_state(self, msg, page, trigger) -> None:
        super()._client_state(msg, page, trigger)
        cs = msg.rerun_script
        if not cs.page_script_hash:
            cs.page_name = page
        if self.fragment_id:
            cs.fragment_id = self.fragment_id

    async def rerun(self, page=None, click=None, wait=True):
        self.bytes = 0  # (the run's number: self.runs, counted by Session.rerun)
        self.sizes = []  # (bytes, element) of each delta of this run: --elements
        seen = set(self.seen)
        run = await super().rerun(page, click, wait)
        if self.fragment_id:  # a fragment's run draws its own widgets; the others stay on screen
            self.seen |= seen
        run.bytes = self.bytes
        return run

    async def _read_until_finished(self, run) -> None:
        while True:
            raw = await self.ws.recv()
            self.bytes += len(raw)
            fwd = ForwardMsg()
            fwd.ParseFromString(raw)
            fwd = self._through_cache(raw, fwd)
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id or self.session_id
            elif kind == "navigation":
                self.pages.update({p.url_pathname: p.page_script_hash
                                   for p in fwd.navigation.app_pages})
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "delta":
                self._read_delta(fwd.delta, run)
                self._remember(fwd.delta)
                self.sizes.append((len(raw), element_name(fwd.delta)))
            elif kind == "script_finished":
                run.status = fwd.script_finished
                if fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    return

    def _remember(self, delta) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        el = delta.new_element
        kind = el.WhichOneof("type")
        if kind not in WIDGET_KINDS:
            return
        body = getattr(el, kind)
        wid = getattr(body, "id", "")
        if isinstance(wid, str) and wid.startswith("$$ID-") and wid.count("-") >= 2:
            key = wid.split("-", 2)[2]
            self.elements[key] = (kind, body)
            if delta.fragment_id:
                self.fragments[key] = delta.fragment_id


def element_name(delta) -> str:
    """An element in a few words for --elements: its kind and its key, title or first text."""
    if delta.WhichOneof("type") != "new_element":
        return delta.WhichOneof("type") or "?"
    el = delta.new_element
    kind = el.WhichOneof("type") or "?"
    body = getattr(el, kind, None)
    wid = getattr(body, "id", "")
    if isinstance(wid, str) and wid.count("-") >= 2:
        return f"{kind} {wid.split('-', 2)[2]}"
    if kind == "plotly_chart":
        try:
            title = json.loads(body.spec).get("layout", {}).get("title", {})
            return f"{kind} {(title.get('text', '') if isinstance(title, dict) else title)[:50]}"
        except (ValueError, AttributeError):
            return kind
    text = getattr(body, "body", "")
    return f"{kind} {text[:50]!r}" if isinstance(text, str) and text else kind


def print_elements(label: str, sizes, top: int) -> None:
    print(f"# {label}: {sum(n for n, _ in sizes) / 1024:.0f} KB in {len(sizes)} deltas; the largest:",
          file=sys.stderr)
    for n, name in sorted(sizes, key=lambda x: -x[0])[:top]:
        print(f"#   {n / 1024:8.1f} KB  {name}", file=sys.stderr)


def next_value(kind: str, body, i: int):
    """The i-th new value for a widget (None: a click). Cycles through values other than the
    one shown, so every change is a real change."""
    if kind == "slider":
        cur = body.value[0] if body.value else body.default[0]
        if body.data_type == body.INT and body.max - body.min <= 500:
            values = [float(v) for v in range(int(body.min), int(body.max) + 1)]
        else:
            values = [body.min, body.max, body.min + (body.max - body.min) / 2]
        others = [v for v in values if v != cur] or [cur]
        value = others[i // 2 % len(others)] if i % 2 == 0 else cur
        return [int(value)] if body.data_type == body.INT else [value]
    if kind in ("radio", "selectbox"):
        opts = list(body.options)
        cur = body.default if body.HasField("default") else 0
        if body.HasField("raw_value") and body.raw_value in opts:
            cur = opts.index(body.raw_value)
        return opts[(cur + 1 + i // 2) % len(opts)] if i % 2 == 0 else opts[cur]
    if kind == "checkbox":
        return bool((i + 1) % 2) != bool(body.default)
    return None


def describe(kind: str, body) -> str:
    if kind == "slider":
        return f"slider {body.min:g}..{body.max:g}"
    if kind in ("radio", "selectbox"):
        return f"{kind} {len(body.options)} options"
    if kind in ("text_input", "text_area"):
        return f"{kind}, typed"
    return kind


class Budget:
    def __init__(self, seconds: float):
        self.end = time.time() + seconds
        self.skipped = 0

    def left(self) -> bool:
        return time.time() < self.end


async def visit(base: str, lang: str, path: str, timeout: float,
                extra: str = "") -> tuple[BenchSession, object]:
    s = BenchSession(base, lang, timeout, extra)
    await s.connect()
    run = await s.rerun(path)
    return s, run


def row(root: str, lang: str, page: str, what: str, times, sizes, note: str = "") -> dict:
    return {"root": root, "lang": lang, "page": page, "what": what, "n": len(times),
            "p50_s": round(pct(times, 0.5), 3), "p95_s": round(pct(times, 0.95), 3),
            "bytes_p50": int(pct(sizes, 0.5)) if sizes else None,
            "bytes_max": max(sizes) if sizes else None, "note": note,
            "times_s": [round(x, 3) for x in times]}  # each run, in order (a slow first move shows)


async def measure_page(base, root_name, lang, page, path, args, budget, rows, prof) -> None:
    try:
        s, run = await visit(base, lang, path, args.timeout)
    except RunError as err:
        rows.append(row(root_name, lang, page, "cold load", [], [], f"error: {err}"))
        return
    await s.close()
    rows.append(row(root_name, lang, page, "cold load", [run.seconds], [run.bytes]))
    times, sizes, s = [], [], None
    for _ in range(args.warm_repeat):
        if not budget.left():
            budget.skipped += 1
            break
        if s is not None:
            await s.close()
        s, run = await visit(base, lang, path, args.timeout)
        times.append(run.seconds)
        sizes.append(run.bytes)
        if args.elements:
            print_elements(f"{root_name} {lang} {page} warm load", s.sizes, args.top)
    rows.append(row(root_name, lang, page, "warm load", times, sizes))
    if s is None:
        return
    try:
        for what, key in CONTROLS.get(page, []):
            if args.list:
                break
            if args.controls and what not in args.controls:
                continue
            if key not in s.elements and key in FOLDED:  # open its expander by the link
                await s.close()
                s, _run = await visit(base, lang, path, args.timeout, f"&{FOLDED[key]}=true")
            if key not in s.elements:
                rows.append(row(root_name, lang, page, what, [], [], f"no widget {key!r} on the page"))
                continue
            kind, body = s.elements[key]
            times, sizes, profs, largest = [], [], [], []
            for i in range(args.repeat):
                if not budget.left():
                    budget.skipped += 1
                    break
                typed = TYPED.get((key, lang))
                value = typed[i % len(typed)] if typed else next_value(kind, body, i)
                before = set(prof.glob("run-*.prof")) if prof else set()
                s.fragment_id = s.fragments.get(key, "")  # a widget in a fragment reruns it alone
                if value is None:
                    run = await s.rerun(click=key)
                else:
                    s.set_widget(key, value)
                    run = await s.rerun()
                if run.bytes > max(sizes, default=-1):
                    largest = list(s.sizes)
                times.append(run.seconds)
                sizes.append(run.bytes)
                if prof:
                    profs += sorted(set(prof.glob("run-*.prof")) - before)
            rows.append(row(root_name, lang, page, what, times, sizes, f"{key}: {describe(kind, body)}"))
            if args.elements and largest:
                print_elements(f"{root_name} {lang} {page} {what} (its largest change)", largest, args.top)
            if prof and profs and what in (args.controls or ["step slider"]):
                rows[-1]["profile"] = summarise_profile(profs, len(times), args.top)
        if args.list:
            for key, (kind, body) in sorted(s.elements.items()):
                print(f"  {lang} {page:10s} {key:28s} {describe(kind, body)}")
    except RunError as err:
        rows.append(row(root_name, lang, page, "controls", [], [], f"error: {err}"))
    finally:
        await s.close()


# Self time by library: the first matching path fragment names the library.
LIBS = (("plotly", "/plotly/"), ("_plotly_utils", "/_plotly_utils/"), ("torch", "/torch/"),
        ("numpy", "/numpy/"), ("pandas", "/pandas/"), ("pyarrow", "/pyarrow/"),
        ("streamlit", "/streamlit/"), ("protobuf", "/google/protobuf/"), ("toml(lib)", "toml"),
        ("rnnviz.figures", "/rnnviz/figures/"), ("rnnviz (maths)", "/rnnviz/"),
        ("ui.i18n", "/ui/i18n.py"), ("ui (other)", "/ui/"), ("pages", "/pages/"),
        ("json", "/json/"), ("re", "/re/"), ("copy", "/copy.py"), ("builtins (C)", "~"))
# Cumulative time of named functions (file fragment, function name): what the issue asks about.
NAMED = (("ui/i18n.py", "t"), ("ui/i18n.py", "languages"), ("ui/i18n.py", "prose"),
         ("rnnviz/figures/common.py", "style"), ("plotly/basedatatypes.py", "__init__"),
         ("plotly/basedatatypes.py", "update"), ("plotly/basedatatypes.py", "__setitem__"),
         ("plotly/basedatatypes.py", "to_plotly_json"), ("plotly/io/_json.py", "to_json_plotly"),
         ("streamlit/elements/plotly_chart.py", "plotly_chart"),
         ("streamlit/elements/arrow.py", "dataframe"), ("streamlit/elements/markdown.py", "markdown"),
         ("streamlit/runtime/forward_msg_cache.py", "populate_hash_if_needed"),
         ("ui/widgets.py", "show_figure"))


def summarise_profile(files, runs: int, top: int) -> dict:
    st_ = pstats.Stats(str(files[0]))
    for f in files[1:]:
        st_.add(str(f))
    total = sum(v[2] for v in st_.stats.values())  # self time of every function
    entries = sorted(st_.stats.items(), key=lambda kv: kv[1][3], reverse=True)
    topn = [{"cum_s": round(v[3] / runs, 4), "pct": round(100 * v[3] / total, 1),
             "self_s": round(v[2] / runs, 4), "calls": round(v[1] / runs),
             "func": f"{short(k[0])}:{k[1]}({k[2]})"} for k, v in entries[:top]]
    libs: dict[str, float] = {}
    for (path, _, _), v in st_.stats.items():
        name = next((n for n, frag in LIBS if frag in path), "other")
        libs[name] = libs.get(name, 0.0) + v[2]
    named = {}
    for frag, fn in NAMED:
        hits = [v for k, v in st_.stats.items() if k[0].endswith(frag) and k[2] == fn]
        if hits:
            cum = max(h[3] for h in hits)
            named[f"{frag}:{fn}"] = {"cum_s": round(cum / runs, 4), "pct": round(100 * cum / total, 1),
                                     "calls": round(sum(h[1] for h in hits) / runs)}
    return {"runs": runs, "total_s": round(total / runs, 4), "top": topn,
            "self_by_lib": {k: round(100 * v / total, 1) for k, v in
                            sorted(libs.items(), key=lambda kv: -kv[1])},
            "named": named}


def short(path: str) -> str:
    for marker in ("site-packages/", "/lib/python3"):
        if marker in path:
            return path.split(marker, 1)[1]
    for marker in ("/rnnviz/", "/ui/", "/pages/", "/bench/"):
        if marker in path:
            return marker.strip("/") + "/" + path.split(marker, 1)[1]
    return path


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def commit_of(root: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def run_root(root: Path, name: str, args, budget: Budget, rows: list, loads: list) -> None:
    print(f"# {name}: bytecode warmed in {warm_bytecode(root):.1f} s (artifacts/pycache)", file=sys.stderr)
    for lang in args.langs:
        prof = Path(tempfile.mkdtemp(prefix="bench-prof-", dir=ROOT / "artifacts")) if args.profile else None
        t0 = time.perf_counter()
        with app_server(root, f"bench-pages-{lang}.log", profile_dir=prof) as (base, _proc):
            rows.append(row(name, lang, "(server)", "streamlit run -> healthy",
                            [time.perf_counter() - t0], []))
            for page, path in PAGES:
                if args.pages and page not in args.pages:
                    continue
                if not (root / "pages" / f"{page}.py").exists():
                    continue
                if not budget.left():
                    budget.skipped += 1
                    continue
                loads.append(load_average())
                asyncio.run(measure_page(base, name, lang, page, path, args, budget, rows, prof))
                print(f"# {name} {lang} {page} done, load {loads[-1]}", file=sys.stderr, flush=True)


def kb(n) -> str:
    return "-" if n is None else f"{n / 1024:.0f}"


def print_table(rows: list) -> None:
    print(f"{'root':<10} {'lang':<4} {'page':<10} {'what':<28} {'n':>2} {'p50 s':>7} {'p95 s':>7} "
          f"{'KB p50':>7} {'KB max':>7}  note")
    for r in rows:
        print(f"{r['root']:<10} {r['lang']:<4} {r['page']:<10} {r['what']:<28} {r['n']:>2} "
              f"{r['p50_s']:>7.3f} {r['p95_s']:>7.3f} {kb(r['bytes_p50']):>7} {kb(r['bytes_max']):>7}  "
              f"{r['note']}")


def print_profiles(rows: list) -> None:
    for r in rows:
        p = r.get("profile")
        if not p:
            continue
        print(f"\n## {r['root']} {r['lang']} {r['page']}: {r['what']} ({r['note']}), cProfile of the "
              f"script thread, {p['runs']} runs, {p['total_s']:.3f} s profiled per run")
        print(f"{'cum s/run':>9} {'% run':>6} {'self s':>7} {'calls':>7}  function")
        for e in p["top"]:
            print(f"{e['cum_s']:>9.4f} {e['pct']:>6.1f} {e['self_s']:>7.4f} {e['calls']:>7}  {e['func']}")
        print("self time by library (% of the run): " +
              ", ".join(f"{k} {v}" for k, v in p["self_by_lib"].items() if v >= 0.5))
        print("named functions, cumulative (s/run, % of the run, calls/run):")
        for k, v in p["named"].items():
            print(f"  {k:<58} {v['cum_s']:>8.4f} {v['pct']:>6.1f}% {v['calls']:>7}")


def main(argv=None) -> list:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--app-root", action="append", default=None,
                    help="checkout to serve (repeatable; default: this checkout)")
    ap.add_argument("--repeat", type=int, default=10, help="changes per control")
    ap.add_argument("--warm-repeat", type=int, default=5, help="warm visits per page")
    ap.add_argument("--pages", default="", help="comma-separated page names (default: all)")
    ap.add_argument("--langs", default="en,zh")
    ap.add_argument("--controls", default="",
                    help='comma-separated controls to measure, e.g. "step slider" (default: all)')
    ap.add_argument("--timeout", type=float, default=180, help="seconds per run at most")
    ap.add_argument("--max-seconds", type=float, default=1800, help="measuring time per app root")
    ap.add_argument("--json", default=None, metavar="FILE", help="also write the rows as JSON here")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile each run; print the top costs of the step slider (or of --controls)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--list", action="store_true", help="list every widget key of each page instead")
    ap.add_argument("--elements", action="store_true",
                    help="print (to stderr) the --top largest elements of each warm visit, "
                         "and of each control's largest change")
    args = ap.parse_args(argv)
    if not 1 <= args.repeat <= MAX_REPEAT or not 0 <= args.warm_repeat <= MAX_REPEAT:
        ap.error(f"--repeat and --warm-repeat must be at most {MAX_REPEAT}")
    args.pages = [p for p in args.pages.split(",") if p]
    unknown = [p for p in args.pages if p not in dict(PAGES)]
    if unknown:  # a misspelt page was skipped without a word (e.g. "overview", which is "home")
        ap.error(f"unknown page(s) {unknown}; the pages are {[name for name, _ in PAGES]}")
    args.langs = [x for x in args.langs.split(",") if x]
    args.controls = [x for x in args.controls.split(",") if x]
    roots = [Path(r).resolve() for r in (args.app_root or [str(ROOT)])]
    names = [r.name for r in roots]
    if len(set(names)) < len(names):
        names = [f"{n}#{i}" for i, n in enumerate(names)]
    os.environ.setdefault("STREAMLIT_BROWSER_GATHER_USAGE_STATS", "false")
    rows, loads, meta = [], [], []
    for root, name in zip(roots, names, strict=True):
        budget = Budget(args.max_seconds)
        run_root(root, name, args, budget, rows, loads)
        meta.append({"root": str(root), "name": name, "commit": commit_of(root),
                     "skipped": budget.skipped})
    for m in meta:
        print(f"# {m['name']} = {m['root']} at {m['commit']}"
              + (f"; {m['skipped']} measurement(s) skipped at --max-seconds" if m["skipped"] else ""))
    print(f"# load average (1, 5, 15 min) before each page: {', '.join(loads)}")
    print_table(rows)
    if args.profile:
        print_profiles(rows)
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "load_averages": loads, "rows": rows},
                                              indent=1, ensure_ascii=False) + "\n")
    return rows


if __name__ == "__main__":
    main()
