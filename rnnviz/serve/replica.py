"""Which replica serves this session, and what to tell a learner moved from a stopped one.

Behind the load balancer (deploy/haproxy.cfg) every replica runs with RNNVIZ_REPLICA set to
its name, and HAProxy pins a browser to a replica with the cookie COOKIE (its value is that
name). If the pinned replica stops, HAProxy sends the browser's reconnect to a live replica,
which sees a cookie naming another replica: the session there is new (Streamlit sessions live
in one process), rebuilt from the link, and the learner is told so.
"""
from __future__ import annotations

import os
import re

COOKIE = "rnnviz_replica"
ENV = "RNNVIZ_REPLICA"
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")


def this_replica(environ=os.environ) -> str | None:
    """This process's replica name, or None when it runs alone (no load balancer)."""
    name = environ.get(ENV, "")
    return name if _NAME.match(name) else None


def moved_notice(cookie_value: str | None, here: str | None) -> str | None:
    """The message for a session whose cookie names another replica than this one, else None.
    A cookie that is not a plausible replica name is ignored (it is not shown either)."""
    if not here or not cookie_value or cookie_value == here or not _NAME.match(cookie_value):
        return None
    return (f"The server that held your session ({cookie_value}) stopped, so you were moved to "
            f"another one ({here}). This page was rebuilt from its link: your sentence and "
            "settings are back, but models trained or uploaded before the move are gone "
            "(download a model file on page 6 to keep one).")
