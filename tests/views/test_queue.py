"""The worker processes' fair queue (views/framework/queue.py): one job per session at a time,
sessions served in turn, each waiting job told its place, a newer request of the same key
superseding, a closed session's jobs dropped."""

from __future__ import annotations

import threading

import pytest

from dynamics.checks import Cancelled
from views.framework.queue import FairQueue, ordinal, place_text


def _granted(queue: FairQueue) -> list:
    return sorted((t.session, t.key) for t in queue.running())


def test_round_robin_across_sessions_one_running_per_session():
    """Session A submits three jobs before B submits two: with one slot, the grants alternate
    A, B, A, B, A (B does not wait behind all of A's)."""
    queue = FairQueue(1)
    tickets = [queue.submit("A", k) for k in ("a1", "a2", "a3")]
    tickets += [queue.submit("B", k) for k in ("b1", "b2")]
    order = []
    for _ in range(5):
        (running,) = queue.running()
        order.append(running.key)
        queue.release(running)
    assert order == ["a1", "b1", "a2", "b2", "a3"]
    assert queue.running() == [] and queue.waiting() == []
    assert all(t.done for t in tickets)


def test_a_session_never_holds_two_slots():
    """Two slots and one session with three jobs: only one computes; a second session's job
    takes the other slot at once."""
    queue = FairQueue(2)
    a = [queue.submit("A", k) for k in ("a1", "a2", "a3")]
    assert _granted(queue) == [("A", "a1")]
    b = queue.submit("B", "b1")
    assert b.granted and _granted(queue) == [("A", "a1"), ("B", "b1")]
    queue.release(b)
    assert _granted(queue) == [("A", "a1")]  # the free slot stays free: A has one running
    queue.release(a[0])
    assert _granted(queue) == [("A", "a2")]


def test_place_in_the_queue():
    """Places follow the order of the grants to come: the waiting jobs of A, B and C in
    turns, and the status text says them."""
    queue = FairQueue(1)
    running = queue.submit("A", "a1")
    a2 = queue.submit("A", "a2")
    b1 = queue.submit("B", "b1")
    c1 = queue.submit("C", "c1")
    b2 = queue.submit("B", "b2")
    # A was just served, so it is at the back of the line: B, C, then A's, then B's second
    assert [queue.place(t) for t in (b1, c1, a2, b2)] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert queue.place(running) is None
    assert place_text(queue.place(c1)) == "queued: 2nd of 4"
    queue.release(running)
    assert b1.granted and [queue.place(t) for t in (c1, a2, b2)] == [(1, 3), (2, 3), (3, 3)]


def test_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]


def test_a_newer_request_with_the_same_key_supersedes():
    """The same key again cancels the session's older job, queued or computing; another key
    waits its turn; another session's job of the same key is left alone."""
    queue = FairQueue(1)
    first = queue.submit("A", "run")
    queued = queue.submit("A", "gif")
    other = queue.submit("B", "run")
    again = queue.submit("A", "gif")
    assert queued.cancel.is_set() and not first.cancel.is_set()
    assert not other.cancel.is_set()
    assert queue.waiting() == [other, again]
    newest = queue.submit("A", "run")
    assert first.cancel.is_set()  # computing: cancelled (its worker is killed by its thread)
    queue.release(first)
    assert other.granted and queue.waiting() == [again, newest]


def test_drop_cancels_every_job_of_a_session():
    queue = FairQueue(1)
    mine = [queue.submit("gone", k) for k in ("run", "png", "gif")]
    theirs = queue.submit("here", "png")
    assert queue.drop("gone") == 3
    assert all(t.cancel.is_set() for t in mine) and not theirs.cancel.is_set()
    queue.release(mine[0])  # the computing one's thread sees its cancel and lets go
    assert theirs.granted and queue.waiting() == []
    assert queue.drop("gone") == 0


def test_waiting_threads_are_granted_in_turn_and_told_their_place():
    """Threads blocked in ``wait``: each hears its place, and they start in round-robin order;
    a cancelled one leaves with ``Cancelled``."""
    queue = FairQueue(1)
    blocker = queue.submit("A", "first")
    started, places, lock = [], {}, threading.Lock()

    def job(session, key, ticket):
        def on_place(place):
            with lock:
                places.setdefault(key, []).append(place)
        try:
            queue.wait(ticket, on_place, poll=0.01)
        except Cancelled:
            with lock:
                started.append(f"cancelled {key}")
            return
        with lock:
            started.append(key)
        queue.release(ticket)

    specs = [("A", "a2"), ("A", "a3"), ("B", "b1"), ("C", "c1"), ("C", "c2")]
    tickets = {key: queue.submit(session, key) for session, key in specs}
    threads = [threading.Thread(target=job, args=(s, k, tickets[k])) for s, k in specs]
    for thread in threads:
        thread.start()
    # every thread has told its place before the first job ends
    deadline = threading.Event()
    for _ in range(500):
        with lock:
            if len(places) == len(specs):
                break
        deadline.wait(0.01)
    assert {k: v[0] for k, v in places.items()} == {
        "b1": (1, 5), "c1": (2, 5), "a2": (3, 5), "c2": (4, 5), "a3": (5, 5)}
    tickets["c2"].cancel.set()
    queue.release(blocker)
    for thread in threads:
        thread.join(10)
    assert "cancelled c2" in started
    assert [s for s in started if not s.startswith("cancelled")] == ["b1", "c1", "a2", "a3"]
    assert queue.running() == [] and queue.waiting() == []


def test_slots_must_be_positive():
    with pytest.raises(ValueError, match="slots"):
        FairQueue(0)
