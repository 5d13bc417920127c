"""Page 1 (embedding) with a V = 5,000, d = H = 128 own model: server CPU-seconds, RSS growth
and bytes sent per run, in process (streamlit.testing AppTest).

    python bench/bench_big_vocab.py [--root PATH] [--runs 3] [--V 5000] [--trained] [--top N]

--root runs another checkout's page (e.g. the old commit, for the baseline) with this script.
The model goes into the session as an own model (session_state["own_models"], the path an
uploaded or trained model takes). Bytes: the sum of the serialized protobuf of every element the
run produced (what Streamlit sends as ForwardMsg deltas, less a few bytes of framing each).
RSS: VmRSS from /proc after the run minus before the first run (after one warm-up run of the page
on the built-in default model, so imports are not counted; the model itself excluded).
Not a test: it prints figures; nothing asserts on them.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def element_bytes(node) -> tuple[int, int]:
    """(bytes, elements) of every element proto under an AppTest node."""
    total = count = 0
    proto = getattr(node, "proto", None)
    if proto is not None and hasattr(proto, "ByteSize"):
        total, count = proto.ByteSize(), 1
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            b, c = element_bytes(child)
            total, count = total + b, count + c
    return total, count


def largest(node, out=None) -> list:
    """(bytes, kind, key) of every element, largest first."""
    out = [] if out is None else out
    proto = getattr(node, "proto", None)
    if proto is not None and hasattr(proto, "ByteSize"):
        out.append((proto.ByteSize(), type(proto).__name__, getattr(node, "key", None)))
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            largest(child, out)
    return sorted(out, key=lambda r: -r[0])


def big_model(V: int, d: int = 128, H: int = 128):
    from rnnviz.engine.model import RNNConfig, RNNModel
    from rnnviz.text.tokenize import SPECIALS, Vocab
    words = SPECIALS + tuple(f"w{k:04d}" for k in range(V - len(SPECIALS)))
    return RNNModel(RNNConfig(V, d, H), seed=0).eval(), Vocab(words)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--V", type=int, default=5000)
    ap.add_argument("--trained", action="store_true",
                    help="meta records a training seed (as page 6's models): E's start is compared too")
    ap.add_argument("--top", type=int, default=0, help="print the N largest elements of the last run")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    sys.path.insert(0, str(root))
    os.chdir(root)
    from streamlit.testing.v1 import AppTest

    model, vocab = big_model(args.V)
    text = " ".join(vocab.itos[10:22])
    print(f"root {root}  V={args.V} d=H=128  sentence: {len(text.split())} words")
    warm = AppTest.from_file(str(root / "pages/embedding.py"), default_timeout=600)
    warm.query_params["model"] = "default"   # imports and built-in resources, before the baseline
    warm.run()
    base = rss_mb()
    at = AppTest.from_file(str(root / "pages/embedding.py"), default_timeout=600)
    meta = {"level": "word"}
    if args.trained:
        meta["report"] = {"train_config": {"seed": 1}}
    at.session_state["own_models"] = {"big": (model, vocab, meta)}
    at.session_state["model"], at.session_state["text"] = "own:big", text
    for run in range(args.runs):
        c0, w0 = time.process_time(), time.perf_counter()
        at.run()
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        b, n = element_bytes(at._tree)
        errs = [e.value for e in at.exception]
        print(f"run {run + 1}: CPU {cpu:6.2f} s  wall {wall:6.2f} s  RSS +{rss_mb() - base:7.1f} MB  "
              f"sent {b / 1024:9.1f} KB in {n} elements  exceptions {len(errs)}")
        for e in errs[:2]:
            print("   ", str(e)[:300])
    for size, kind, key in largest(at._tree)[:args.top]:
        print(f"  {size / 1024:8.1f} KB  {kind}  {key}")


if __name__ == "__main__":
    main()
