"""Where a loaded server spends its GIL: py-spy samples one `streamlit run` of this checkout
while bench_load.py drives N learners against it, then prints the shares.

    pip install py-spy==0.4.3
    python bench/profile_load.py --sessions 40 --seconds 100 [--raw FILE]

Sampled: only the thread holding the GIL (py-spy --gil), 40 times a second, so the shares add up
to what one process can do. Printed: the share by who does the work (the innermost frame's package;
a standard-library frame counts for its innermost caller outside it), the share by library found
anywhere in the stack (the first of plotly, copy, pandas / pyarrow, torch, else streamlit, whose
script runner is under every run), the Streamlit calls the app makes (st.plotly_chart,
st.dataframe, ...), and the app's own functions by inclusive share.
Loopback only; bounded by --seconds (at most 600). Not a test: it prints figures.
"""
from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.appserver import app_server, warm_bytecode  # noqa: E402

LIBRARIES = (("plotly", ("plotly/", "_plotly_utils")), ("copy.deepcopy", ("/copy.py",)),
             ("pandas / pyarrow", ("pandas/", "pyarrow")), ("torch", ("torch/",)),
             ("streamlit", ("streamlit/",)))
OURS = re.compile(r"\((ui|rnnviz)/")
# Who does the work: the innermost frame's package; a standard-library frame counts for the
# innermost caller that is not (json.dumps under plotly is plotly's, a selector wait Streamlit's).
OWNERS = (("plotly", ("plotly/", "_plotly_utils")), ("pandas / pyarrow", ("pandas/", "pyarrow")),
          ("torch", ("torch/",)), ("numpy", ("numpy/",)), ("protobuf", ("google/protobuf",)),
          ("starlette / uvicorn / websockets", ("starlette/", "uvicorn/", "anyio/", "websockets/")),
          ("streamlit", ("streamlit/",)),
          ("the app (ui/, rnnviz/, pages/, app.py)", tuple(
              f"({prefix}{part}" for prefix in ("", f"{ROOT}/")
              for part in ("ui/", "rnnviz/", "pages/", "app.py"))))


def owner(frames: list[str]) -> str:
    """The package that does the work of one sample (see OWNERS)."""
    for fr in reversed(frames):
        name = next((name for name, keys in OWNERS if any(k in fr for k in keys)), None)
        if name is not None:
            return name
    return "the standard library alone"


def stacks(raw: Path):
    """(frames, samples) of each line of py-spy's raw (collapsed) output."""
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        yield stack.split(";"), int(n)


def shares(raw: Path, top: int) -> None:
    total, libs, calls, ours = 0, collections.Counter(), collections.Counter(), collections.Counter()
    owners = collections.Counter()
    for frames, n in stacks(raw):
        total += n
        owners[owner(frames)] += n
        libs[next((name for name, keys in LIBRARIES
                   if any(k in fr for fr in frames for k in keys)), "other")] += n
        for i, fr in enumerate(frames[1:], 1):  # the first st.* call below the app's own code
            if "gather_metrics.<locals>.wrapped_func" in fr and "streamlit/" not in frames[i - 1]:
                if i + 1 < len(frames):
                    calls[re.sub(r" \(.*", "", frames[i + 1])] += n
                break
        for name in {re.sub(r":\d+\)$", ")", fr) for fr in frames if OURS.search(fr)}:
            ours[name] += n
    print(f"{total} samples holding the GIL")
    for title, counter, k in (("by who does the work (innermost frame)", owners, 10),
                              ("by library anywhere in the stack (Streamlit's runner is under every run, so "
                               "'streamlit' includes the app's own code)", libs, 10),
                              ("Streamlit calls", calls, top),
                              ("the app's functions (inclusive)", ours, top)):
        print(f"--- {title}")
        for name, n in counter.most_common(k):
            print(f"{100 * n / total:6.1f} %  {name}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=40)
    ap.add_argument("--seconds", type=float, default=100)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--raw", type=Path, default=None, help="keep py-spy's raw samples here")
    ap.add_argument("--shares-of", type=Path, default=None, metavar="RAW",
                    help="print the shares of raw samples kept earlier, and run nothing")
    args = ap.parse_args()
    if not shutil.which("py-spy"):
        sys.exit("py-spy is not installed: pip install py-spy==0.4.3")
    if args.shares_of is not None:
        shares(args.shares_of, args.top)
        return
    seconds = min(max(args.seconds, 10), 600)
    raw = args.raw or Path(tempfile.mkdtemp()) / "load.txt"
    warm_bytecode(ROOT)
    with app_server(ROOT, "profile_load.log") as (url, proc):
        urllib.request.urlopen(url + "/", timeout=60).read()  # the imports happen before sampling
        spy = subprocess.Popen(["py-spy", "record", "-p", str(proc.pid), "-d", str(int(seconds)), "-r", "40",
                                "-f", "raw", "-o", str(raw), "--nonblocking", "--threads", "--gil"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        load = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_load.py"), "--url", url,
                               "--sessions", str(args.sessions), "--think", "5", "--seconds", str(seconds)],
                              capture_output=True, text=True, timeout=seconds + 600)
        print(load.stdout.strip().splitlines()[-1] if load.stdout.strip() else load.stderr[-2000:])
        spy.wait(timeout=120)
    shares(raw, args.top)


if __name__ == "__main__":
    main()
