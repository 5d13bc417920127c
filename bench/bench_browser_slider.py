"""A step-slider move in Chromium, two checkouts side by side: how long until the page's script
has finished and the page is drawn, and how many bytes a page visit receives.

    python bench/bench_browser_slider.py [BASE_ROOT [CURRENT_ROOT]] [--repeat 5] [--one-server]
                                         [--pages embedding,hidden,output,bptt,gates] [--lang en]
                                         [--answered]

Defaults: BASE_ROOT /work/wt/base (commit 6134da8, the "before"), CURRENT_ROOT this checkout.
Both servers are started (`streamlit run` on 127.0.0.1, free ports, bench/appserver.py) and
driven by the system Chromium (Playwright, headless, never a downloaded browser). For each
page, the two roots are measured one after the other (which goes first alternates), each in a
new browser context:

- visit: goto <page>?lang=<lang> until the run has finished (a ForwardMsg script_finished
  frame has arrived and Streamlit's running indicator is gone), and the bytes received: the
  sum of the websocket frames' payload sizes (page.on("websocket") framereceived) during
  the visit;
- slider move, --repeat times: the page's step slider is focused and ArrowRight (then
  ArrowLeft, alternately, so every press is a change) is pressed; "finished" is the time from
  the key press until the browser receives the script_finished frame of the rerun it caused;
  "drawn" adds the wait until the running indicator is gone and two animation frames later.
  Bytes per move: the frames received meanwhile.
- shown (per move, on a page whose step parts follow the slider in the browser, ui/stepped.py):
  from the key press until every one of them shows the new step, two animation frames later;
  the ratio "shown" is the base's drawn over it;
- request (per move): from the key press until the browser sent its first frame after it (the rerun
  request), so "finished" minus "request" is the server's round trip as the browser sees it;
- answered (per move): from the key press until the server had written that rerun's
  script_finished to the websocket (the servers run under bench/answer_server.py, which notes
  the time; same machine, same clock). "finished" minus "answered" is the browser's own delay:
  its renderer handles the frame only once it has drawn the frames before it;
- a slider in a step form (ui/widgets.step_form, pages 2-4 where their parts follow it): the move
  runs nothing until the learner stops (ui/stepped.js presses the form's sync SYNC_MS later).
  "drawn" is then "shown", checked with no run begun and no running indicator; "finished" and
  "sync" (drawn and idle) time that later run from its request as Playwright saw it; "request"
  says when it came; "answered" is left out (bench_pages.py gives that run's server time).

--answered: after the visit, every predict-first checkpoint's Skip is clicked before the moves,
so a move redraws the figures they guard, as for a learner who answered them (6134da8 had no
checkpoints: it always drew them).

Prints per page and root the medians, and the ratio base / current (> 1: current faster).
Bounded: at most 20 repeats and --max-seconds overall (then it stops and says so).
Not a test: nothing asserts on the figures. Loopback only.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from bench.answer_server import answers_since  # noqa: E402
from bench.appserver import app_server  # noqa: E402
from tools.server import CHROME_ARGS, CHROMIUM, IDLE_JS, TWO_FRAMES_JS  # noqa: E402

SLIDERS = {"embedding": "emb_step", "hidden": "hid_step", "output": "out_step", "bptt": "bptt_step",
           "gates": "gates_step", "slots": "slot_force_step", "origins": "origins_centre"}
MAX_REPEAT = 20
# Parts that follow the step slider in the browser (ui/stepped.py: text and tables, and charts
# with a data-step once drawn): "shown" is the key press until every one of them shows the
# slider's new step and two animation frames later; the slider's run goes on after it ("drawn").
HAS_STEPPED_JS = "() => !!document.querySelector('.rnnviz-stepped, .rnnviz-chart-frame[data-step]')"
SHOWN_JS = """key => {
  const input = document.querySelector(`.st-key-${key} input[type="range"]`);
  const parts = [...document.querySelectorAll('.rnnviz-stepped, .rnnviz-chart-frame[data-step]')];
  return input && parts.length && parts.every(e => e.dataset.step === String(input.value));
}"""

# The slider sits in a step form (ui/widgets.step_form): a move runs nothing at once, and the form's
# sync is pressed when the learner stops (ui/stepped.js, SYNC_MS). Its "drawn" is then the key press
# until every part shows the step with no run begun ("shown", checked idle); "finished" and "sync"
# time that later run from its request (script_finished; drawn and idle), "request" is when it came.
DEFERRED_JS = "key => !!document.querySelector(`.st-key-step_sync_${key} button`)"


class Frames:
    """Websocket frames a page receives: bytes, and when each script_finished arrived."""

    def __init__(self):
        self.bytes = 0
        self.finished: list[float] = []
        self.sent: list[float] = []  # when the page sent a frame (a rerun request, a heartbeat)

    def attach(self, pg) -> None:
        pg.on("websocket", self.on_socket)

    def on_socket(self, ws) -> None:
        ws.on("framereceived", self.on_frame)
        ws.on("framesent", lambda _payload: self.sent.append(time.perf_counter()))

    def on_frame(self, payload) -> None:
        now = time.perf_counter()
        data = payload.encode() if isinstance(payload, str) else payload
        self.bytes += len(data)
        fwd = ForwardMsg()
        try:
            fwd.ParseFromString(data)
        except Exception:  # noqa: BLE001 - not a ForwardMsg: counted, not parsed
            return
        if fwd.WhichOneof("type") == "script_finished" and \
                fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            self.finished.append(now)


def wait_finished(pg, frames: Frames, count: int, timeout_s: float) -> float | None:
    """Wait (pumping Playwright's events) until more than `count` script_finished frames have
    arrived; returns the arrival time of the first new one, None on timeout."""
    deadline = time.perf_counter() + timeout_s
    while len(frames.finished) <= count and time.perf_counter() < deadline:
        pg.wait_for_timeout(10)
    return frames.finished[count] if len(frames.finished) > count else None


def settle(pg, timeout_s: float) -> None:
    pg.wait_for_function(IDLE_JS, timeout=timeout_s * 1000)
    pg.evaluate(TWO_FRAMES_JS)


def open_step_slider(pg, frames: Frames, url: str, page: str, timeout_s: float):
    """Visit url until its run has finished and the page is drawn; returns the page's step slider,
    scrolled into view, 0.5 s later (late frames of the visit), or None if the visit never
    finished."""
    pg.goto(url, timeout=timeout_s * 1000)
    if wait_finished(pg, frames, 0, timeout_s) is None:
        return None
    settle(pg, timeout_s)
    box = pg.locator(f".st-key-{SLIDERS[page]}").first
    box.wait_for(state="attached", timeout=timeout_s * 1000)
    box.scroll_into_view_if_needed()  # an element out of view may be drawn as a skeleton
    slider = box.get_by_role("slider").first  # react-aria: a visually hidden range input
    slider.wait_for(state="attached", timeout=timeout_s * 1000)
    pg.wait_for_timeout(500)  # late frames of the visit (e.g. a rerun the page asked for)
    return slider


def skip_checkpoints(pg, frames: Frames, timeout_s: float) -> int:
    """--answered: click every predict-first checkpoint's Skip (as a learner who answered them
    sees the page: the figures they guard drawn, and redrawn by each move); returns how many."""
    skipped = 0
    for _ in range(6):
        buttons = pg.locator('[class*="st-key-checkpoint_"][class*="_skip"] button')
        if buttons.count() == 0:
            break
        n = len(frames.finished)
        buttons.first.click(timeout=timeout_s * 1000)
        wait_finished(pg, frames, n, timeout_s)
        settle(pg, timeout_s)
        skipped += 1
    return skipped


def measure(browser, base: str, page: str, args, answers: Path | None = None) -> dict:
    """One page on one server: the visit, then --repeat step moves. answers: the server's answer
    log (bench/answer_server.py), for "answered"."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    frames = Frames()
    frames.attach(pg)
    out = {"visit_s": None, "visit_bytes": None, "finished_s": [], "drawn_s": [], "move_bytes": [],
           "request_s": [], "answered_s": [], "shown_s": [], "sync_s": []}
    try:
        t0 = time.perf_counter()
        slider = open_step_slider(pg, frames, f"{base}/{page}?lang={args.lang}", page, args.timeout)
        if slider is None:
            out["error"] = "no script_finished on the visit"
            return out
        out["visit_s"], out["visit_bytes"] = time.perf_counter() - t0, frames.bytes
        if getattr(args, "answered", False):
            out["skipped"] = skip_checkpoints(pg, frames, args.timeout)
            slider.scroll_into_view_if_needed()
            pg.wait_for_timeout(500)
        for i in range(args.repeat):
            pg.wait_for_timeout(300)
            slider.focus()  # again each time: a rerun may have replaced the element
            n, b, sent = len(frames.finished), frames.bytes, len(frames.sent)
            t0, wall0 = time.perf_counter(), time.time()
            pg.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            deferred = pg.evaluate(DEFERRED_JS, SLIDERS[page])  # no run until the learner stops
            if pg.evaluate(HAS_STEPPED_JS):  # parts that follow the slider (ui/stepped.py)
                pg.wait_for_function(SHOWN_JS, arg=SLIDERS[page], timeout=args.timeout * 1000)
                pg.evaluate(TWO_FRAMES_JS)
                out["shown_s"].append(time.perf_counter() - t0)
                if deferred:  # the page shows the step and runs nothing: the move is drawn
                    if pg.evaluate(IDLE_JS) and len(frames.sent) == sent:
                        out["drawn_s"].append(out["shown_s"][-1])
                    else:
                        out.setdefault("notes", []).append(f"move {i + 1}: a run began first")
            done = wait_finished(pg, frames, n, args.timeout)
            if done is None:
                out["error"] = f"move {i + 1}: no script_finished in {args.timeout:.0f} s"
                break
            settle(pg, args.timeout)
            request = frames.sent[sent] - t0 if len(frames.sent) > sent else None
            if request is not None:  # the key press until the browser sent the rerun request
                out["request_s"].append(request)
            if deferred:  # the step form's sync: its run, from its request until it is drawn
                out["finished_s"].append(done - t0 - (request or 0.0))
                out["sync_s"].append(time.perf_counter() - t0 - (request or 0.0))
            else:
                out["finished_s"].append(done - t0)
                out["drawn_s"].append(time.perf_counter() - t0)
            answered = answers_since(answers, wall0) if answers is not None else []
            if answered and not deferred:  # (a sync's request time is known only as Playwright saw it)
                out["answered_s"].append(answered[0] - wall0)
            out["move_bytes"].append(frames.bytes - b)
    finally:
        ctx.close()
    return out


def step_pages(ap, args) -> list[str]:
    """The --pages of a Chromium step bench, each with a known step slider, after checking
    --repeat (1..MAX_REPEAT); stops with argparse's message otherwise."""
    if not 1 <= args.repeat <= MAX_REPEAT:
        ap.error(f"--repeat must be 1..{MAX_REPEAT}")
    pages = [p for p in args.pages.split(",") if p]
    unknown = [p for p in pages if p not in SLIDERS]
    if unknown:
        ap.error(f"no step slider known for {unknown}; known: {sorted(SLIDERS)}")
    return pages


def med(values):
    return statistics.median(values) if values else float("nan")


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", help="BASE_ROOT [CURRENT_ROOT]")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pages", default="embedding,hidden,output,bptt,gates")
    ap.add_argument("--lang", default="en")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per wait at most")
    ap.add_argument("--max-seconds", type=float, default=1200)
    ap.add_argument("--json", default=None, metavar="FILE")
    ap.add_argument("--answered", action="store_true",
                    help="skip every predict-first checkpoint after the visit, before the moves "
                         "(the figures they guard are drawn then; 6134da8 had no checkpoints)")
    ap.add_argument("--one-server", action="store_true",
                    help="one server at a time: every page on the base root, then on the current one")
    args = ap.parse_args(argv)
    pages = step_pages(ap, args)
    roots = [Path(r).resolve() for r in (args.roots or ["/work/wt/base", str(ROOT)])]
    if len(roots) == 1:
        roots.append(ROOT)
    if len(roots) != 2:
        ap.error("give at most two roots: BASE_ROOT [CURRENT_ROOT]")
    from playwright.sync_api import sync_playwright

    names = ("base", "current")
    results: dict = {n: {} for n in names}
    loads, end, stopped = [], time.time() + args.max_seconds, False
    warm = argparse.Namespace(**{**vars(args), "repeat": 1})
    answers = {n: ROOT / "artifacts" / f"bench-browser-{n}-answers.log" for n in names}
    (ROOT / "artifacts").mkdir(exist_ok=True)
    for log in answers.values():
        log.unlink(missing_ok=True)
    with contextlib.ExitStack() as stack:
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
        stack.callback(browser.close)
        if args.one_server:  # every page on one root, then on the other, one server at a time
            for root, name in zip(roots, names, strict=True):
                with app_server(root, f"bench-browser-{name}.log", answer_log=answers[name]) as (base, _proc):
                    measure(browser, base, pages[0], warm)  # first page after start: not timed
                    for page in pages:
                        if time.time() > end:
                            stopped = True
                            break
                        loads.append(Path("/proc/loadavg").read_text().split()[0])
                        results[name][page] = measure(browser, base, page, args, answers[name])
                        print(f"# {name} {page} done, load {loads[-1]}", file=sys.stderr, flush=True)
        else:
            bases = [stack.enter_context(app_server(r, f"bench-browser-{n}.log", answer_log=answers[n]))[0]
                     for r, n in zip(roots, names, strict=True)]
            for base in bases:  # the first page after start, not timed: imports, built-in models
                measure(browser, base, pages[0], warm)
            for k, page in enumerate(pages):
                order = (0, 1) if k % 2 == 0 else (1, 0)
                for j in order:
                    if time.time() > end:
                        stopped = True
                        break
                    loads.append(Path("/proc/loadavg").read_text().split()[0])
                    results[names[j]][page] = measure(browser, bases[j], page, args, answers[names[j]])
                    print(f"# {names[j]} {page} done, load {loads[-1]}", file=sys.stderr, flush=True)
    print(f"# base = {roots[0]}, current = {roots[1]}; Chromium {CHROMIUM}, lang={args.lang}, "
          f"{args.repeat} moves per page; medians")
    print(f"# 1-min load average before each page: {' '.join(loads)}"
          + ("; stopped at --max-seconds" if stopped else ""))
    print(f"{'page':<10} {'root':<8} {'visit s':>8} {'visit KB':>9} {'finished s':>11} {'drawn s':>8} "
          f"{'shown s':>8} {'KB/move':>8} {'request s':>10} {'answered s':>11} {'sync s':>7}")
    ratios = {}
    for page in pages:
        for name in names:
            r = results[name].get(page)
            if r is None:
                continue
            vb = "-" if r["visit_bytes"] is None else f"{r['visit_bytes'] / 1024:.0f}"
            vs = "-" if r["visit_s"] is None else f"{r['visit_s']:.2f}"
            print(f"{page:<10} {name:<8} {vs:>8} {vb:>9} {med(r['finished_s']):>11.3f} "
                  f"{med(r['drawn_s']):>8.3f} {med(r.get('shown_s', [])):>8.3f} "
                  f"{med(r['move_bytes']) / 1024:>8.0f} "
                  f"{med(r.get('request_s', [])):>10.3f} {med(r.get('answered_s', [])):>11.3f}"
                  f" {med(r.get('sync_s', [])):>7.3f}"
                  + (f"  {r.get('notes', [''])[0]}" if r.get("notes") else "")
                  + (f"  {r['skipped']} checkpoint(s) skipped" if "skipped" in r else "")
                  + (f"  {r['error']}" if r.get("error") else ""))
        b, c = results["base"].get(page), results["current"].get(page)
        if b and c and b["drawn_s"] and c["drawn_s"]:
            ratios[page] = {"answered": med(b["answered_s"]) / med(c["answered_s"]),
                            "finished": med(b["finished_s"]) / med(c["finished_s"]),
                            "drawn": med(b["drawn_s"]) / med(c["drawn_s"]),
                            # the step's parts on screen (ui/stepped.py), against the base's drawn
                            "shown": (med(b["drawn_s"]) / med(c["shown_s"])) if c.get("shown_s")
                            else float("nan")}
    print("ratio base / current (slider move, median): " + ", ".join(
        f"{p} {v['answered']:.2f} (answered) {v['finished']:.2f} (finished) {v['drawn']:.2f} (drawn)"
        f" {v['shown']:.2f} (shown)" for p, v in ratios.items()))
    out = {"roots": [str(r) for r in roots], "results": results, "ratios": ratios, "loads": loads}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return out


if __name__ == "__main__":
    main()
