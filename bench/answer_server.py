"""Bench-only launcher: `streamlit run` that writes down when the server answered each run.

    BENCH_ANSWER_LOG=FILE python bench/answer_server.py APP.py [streamlit run options]

Each time the server writes a run's script_finished ForwardMsg to a browser's websocket
(as it hands it to WebSocket.send_bytes), one line `<time.time()>` is appended to FILE. A
benchmark on the same machine compares it with the moment it pressed a key: how long the
server took to answer, apart from the browser's own drawing (bench/bench_browser_slider.py,
"answered s"). A rerun cut short for another rerun (FINISHED_EARLY_FOR_RERUN) is no answer.
Only payloads under 1 KB are parsed (a script_finished is a few bytes). Nothing in the app is
changed; production never runs this file.
"""
from __future__ import annotations

import os
import sys
import threading
import time

SMALL = 1024  # bytes: larger payloads are deltas, never a script_finished


def install(path: str) -> None:
    from starlette.websockets import WebSocket
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    send_bytes, lock = WebSocket.send_bytes, threading.Lock()

    async def noted(self, data: bytes) -> None:
        if len(data) < SMALL and _is_answer(data, ForwardMsg):
            with lock, open(path, "a") as log:  # noted as it is handed to the socket: a client
                log.write(f"{time.time():.4f}\n")  # can never have it before this moment
        await send_bytes(self, data)

    WebSocket.send_bytes = noted


def _is_answer(data: bytes, ForwardMsg) -> bool:  # noqa: N803 - the protobuf class
    msg = ForwardMsg()
    try:
        msg.ParseFromString(data)
    except Exception:  # noqa: BLE001 - not a ForwardMsg: no answer
        return False
    return msg.WhichOneof("type") == "script_finished" and \
        msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN


def answers_since(path, since: float) -> list[float]:
    """The answer times (time.time()) in the log at `path` at or after `since`, in order."""
    try:
        with open(path) as log:
            return sorted(t for t in (float(x) for x in log.read().split()) if t >= since)
    except OSError:
        return []


def main() -> None:
    install(os.environ["BENCH_ANSWER_LOG"])
    from streamlit.web import cli
    sys.argv = ["streamlit", "run", *sys.argv[1:]]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
