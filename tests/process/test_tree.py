"""process/tree.py: an agent's process tree, every descendant seen so far (one that left its
group too), stopped with SIGTERM, then SIGKILL after the grace.

Limits and kills through a whole run of a real program are tests/process/test_runner.py's."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

from ralph.process.orphans import Adopted
from ralph.process.tree import Tree, alive, kill, started_at, terminate

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="setsid, signals")


def test_a_gone_process_started_now() -> None:
    before = time.time()
    assert started_at(2**22 + 12345) >= before  # no such pid
    assert started_at(psutil.Process().pid) <= time.time()


@pytest.mark.slow  # starts an agent-like tree
@posix_only
def test_a_child_that_left_the_group_is_seen_and_stopped() -> None:
    # the "agent" starts a child in a session of its own (out of its group), then waits
    agent = subprocess.Popen(
        ["sh", "-c", "setsid sleep 60 & echo $!; wait"],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert agent.stdout is not None
    escaped = psutil.Process(int(agent.stdout.readline()))
    try:
        tree = Tree(agent.pid)
        for _ in range(500):  # until setsid has exec'd sleep: an event, bounded generously
            tree.scan()
            if any(v.pid == escaped.pid for v in tree.victims()):
                break
            time.sleep(0.01)
        assert escaped.pid in {v.pid for v in tree.victims()}
        victims: list[psutil.Process] = []
        terminate(agent, tree, Adopted("tree-test"), 30.0, time.sleep, victims)
        kill(agent, victims)
        assert agent.wait(30) is not None
        assert not alive(escaped)
    finally:
        for proc in (escaped,):
            if alive(proc):
                proc.kill()
        if agent.poll() is None:
            agent.kill()
        agent.wait()
        agent.stdout.close()
