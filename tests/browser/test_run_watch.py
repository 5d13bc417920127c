"""tools/server.RunWatch, which lets wait_ready end as soon as a page's runs are over: fed the
websocket frames a browser's page sends and receives (Streamlit's own protobuf messages), it is
settled only when every run asked for has finished and the socket has been quiet. No browser."""
from __future__ import annotations

import time

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tools.server import QUIET_S, RunWatch


def _finished(status=ForwardMsg.FINISHED_SUCCESSFULLY) -> bytes:
    msg = ForwardMsg()
    msg.script_finished = status
    return msg.SerializeToString()


def _delta() -> bytes:
    msg = ForwardMsg()
    msg.delta.new_element.markdown.body = "Step t = 3"
    return msg.SerializeToString()


def _heartbeat_ack() -> bytes:
    msg = ForwardMsg()
    msg.heartbeat_ack = True
    return msg.SerializeToString()


def _rerun() -> bytes:
    msg = BackMsg()
    msg.rerun_script.query_string = "hid_step=3"
    return msg.SerializeToString()


def _later() -> float:
    return time.monotonic() + QUIET_S + 0.05


def test_settled_once_the_run_asked_for_has_finished_and_the_socket_is_quiet():
    w = RunWatch()
    assert not w.settled(_later())  # nothing seen: no run has finished
    w._sent(_rerun())
    w._received(_delta())
    assert not w.settled(_later())  # asked, not finished
    w._received(_finished())
    assert not w.settled(time.monotonic())  # finished, but the socket has just spoken
    assert w.settled(_later())


def test_a_run_cut_short_for_the_next_or_a_later_request_is_not_the_end():
    w = RunWatch()
    w._sent(_rerun())
    w._received(_finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))
    assert not w.settled(_later())
    w._received(_finished(ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY))  # a fragment's run counts
    assert w.settled(_later())
    w._sent(_rerun())  # the next move
    assert not w.settled(_later())


def test_heartbeats_do_not_keep_the_socket_busy_and_an_unreadable_frame_does():
    w = RunWatch()
    w._sent(_rerun())
    w._received(_finished())
    w.last -= 1.0  # the run ended a second ago
    w._received(_heartbeat_ack())
    assert w.settled(time.monotonic())
    w._received(b"\xff\xff not a Streamlit message")  # unknown: counted as the socket speaking
    assert not w.settled(time.monotonic())
