"""A class from the command line: create one, or read its answers.

    python -m rnnviz.classroom create [--lesson NAME] [--hours H] [--base-url URL]
        -> {"class": CODE, "student_link": ..., "teacher_link": ..., "lesson": ..., "expires": ...}
    python -m rnnviz.classroom answers CODE --json
        -> {"class": CODE, "rounds": {...}, "checkpoints": {checkpoint: {round: {answered, correct,
            answers: {answer: n}}}}}

The store is the app's (RNNVIZ_DATABASE_URL, else SQLite in RNNVIZ_DATA_DIR, default ./data).
The links start at RNNVIZ_BASE_URL (default http://localhost:8501/).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from urllib.parse import urlencode

from rnnviz.errors import InputError, StoreError
from rnnviz.serve.classroom_store import NewClass, clean_code, store_from_env

DEFAULT_BASE = "http://localhost:8501/"


def links(new: NewClass, base: str) -> dict:
    base = base if base.endswith("/") else base + "/"
    student = {"class": new.code} | ({"lesson": new.lesson} if new.lesson else {})
    return {"student_link": f"{base}?{urlencode(student)}",
            "teacher_link": f"{base}?{urlencode(student | {'teacher': new.teacher_token})}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rnnviz.classroom", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("create", help="create a class; prints one JSON line")
    c.add_argument("--lesson", default="", help="a lesson in lessons/ the class follows")
    c.add_argument("--hours", type=float, default=None, help="how long the class lives (default 24)")
    c.add_argument("--base-url", default=os.environ.get("RNNVIZ_BASE_URL", DEFAULT_BASE))
    a = sub.add_parser("answers", help="the counts per checkpoint and round")
    a.add_argument("code")
    a.add_argument("--json", action="store_true", help="one JSON line (the only format)")
    args = ap.parse_args(argv)
    try:
        store = store_from_env()
        if args.cmd == "create":
            new = store.create_class(args.lesson, hours=args.hours)
            out = {"class": new.code, "lesson": new.lesson, "expires": new.expires}
            out |= links(new, args.base_url)
        else:
            code = clean_code(args.code)
            if store.get_class(code) is None:
                print(f"no such class (or it has expired): {args.code[:20]!r}", file=sys.stderr)
                return 2
            out = {"class": code, "rounds": store.rounds(code), "checkpoints": store.counts(code)}
    except (InputError, StoreError) as err:
        print(str(err), file=sys.stderr)
        return 2
    print(json.dumps(out, ensure_ascii=False, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
