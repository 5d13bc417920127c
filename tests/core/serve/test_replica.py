"""The replica name and the message a learner sees after a failover."""
from rnnviz.serve.replica import moved_notice, this_replica


def test_this_replica_reads_a_safe_name_only():
    assert this_replica({"RNNVIZ_REPLICA": "r2"}) == "r2"
    assert this_replica({}) is None
    assert this_replica({"RNNVIZ_REPLICA": "<script>"}) is None


def test_moved_notice_only_when_the_cookie_names_another_replica():
    assert moved_notice("r1", "r1") is None
    assert moved_notice(None, "r1") is None
    assert moved_notice("r1", None) is None           # a single process: no balancer
    assert moved_notice("<b>x</b>", "r2") is None      # not a replica name: ignored, not shown
    msg = moved_notice("r1", "r2")
    assert "(r1) stopped" in msg and "(r2)" in msg and "rebuilt from its link" in msg
