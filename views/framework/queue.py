"""The fair queue of the worker processes: which session's job computes next.

Every job of a served page that runs in a worker process (a learning run, an export, an
animation: ``views.framework.worker.call``) first takes a ``Ticket`` from ``QUEUE`` and computes
once the queue grants it one of its ``slots`` (the worker processes that may compute at the
same time). The queue is fair across sessions:

- **One job per session at a time.** A session's second job waits until its first ends, even
  when a slot is free: one tab cannot hold every worker.
- **Round robin.** When a slot frees, the sessions with a waiting job take turns: the session
  served longest ago (or never) first, then it goes to the back of the line (a session joining
  the line goes ahead of those served since they joined). Within a session, its jobs wait in
  the order they came.
- **A newer request supersedes.** A job submitted with the ``key`` of one of its session's
  jobs (the same run, the same download button) cancels that one, queued or computing: a tab
  pressing Run or GIF again and again keeps one job, not a pile of them. Jobs with other keys
  wait their turn.
- **Its place is known.** ``place(ticket)`` says where a waiting job stands in the order the
  queue would grant the waiting jobs now ("queued: 2nd of 3", ``place_text``); the job shows
  it in its status text.
- **A closed session leaves nothing.** ``drop(session)`` cancels every job of that session,
  queued or computing (a computing worker is killed by the thread that waits for it).

Cancelling is by the ticket's ``threading.Event`` (``cancel``), the one the job's computation
already watches: the queue sets it, the waiting thread sees it within its poll.
"""

from __future__ import annotations

import collections
import os
import threading
from dataclasses import dataclass, field

from dynamics.checks import Cancelled

__all__ = ["FairQueue", "Ticket", "QUEUE", "place_text", "ordinal"]


@dataclass(eq=False)
class Ticket:
    """One job's place in the queue: its session (any hashable), its key (a newer ticket of
    the same session and key supersedes it) and the event that cancels it."""

    session: object
    key: object
    cancel: threading.Event = field(default_factory=threading.Event)
    granted: bool = False
    done: bool = False


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def place_text(place: tuple[int, int]) -> str:
    """A waiting job's place as its status says it: ``(2, 3)`` is "queued: 2nd of 3"."""
    k, n = place
    return f"queued: {ordinal(k)} of {n}"


class FairQueue:
    """Jobs of many sessions sharing ``slots`` workers, one job per session at a time, the
    sessions served in turn (see the module's docstring)."""

    def __init__(self, slots: int):
        if slots < 1:
            raise ValueError(f"slots must be at least 1, got {slots!r}")
        self.slots = slots
        self._cond = threading.Condition()
        self._waiting: dict[object, collections.deque] = {}
        self._running: dict[object, Ticket] = {}
        # the sessions with a job, in the order of their next turn: served last at the back
        self._line: list = []
        # those of them served since they joined the line
        self._served: set = set()

    # --- submitting and waiting --------------------------------------------------------------
    def submit(self, session, key=None, cancel: threading.Event | None = None) -> Ticket:
        """A new ticket of ``session`` at the end of its session's jobs; a ticket of the same
        session and ``key`` (not None), queued or computing, is cancelled (superseded)."""
        ticket = Ticket(session, key, cancel if cancel is not None else threading.Event())
        with self._cond:
            if key is not None:
                old = [t for t in self._waiting.get(session, ()) if t.key == key]
                running = self._running.get(session)
                if running is not None and running.key == key:
                    old.append(running)
                for t in old:
                    t.cancel.set()
                self._forget_cancelled(session)
            self._waiting.setdefault(session, collections.deque()).append(ticket)
            if session not in self._line:
                # ahead of the sessions served since they joined: never served goes first
                served = [i for i, s in enumerate(self._line) if s in self._served]
                self._line.insert(served[0] if served else len(self._line), session)
            self._dispatch()
            self._cond.notify_all()
        return ticket

    def wait(self, ticket: Ticket, on_place=None, poll: float = 0.1) -> None:
        """Block until ``ticket`` is granted a slot; ``on_place((k, n))`` whenever its place
        changes while it waits. ``Cancelled`` once its ``cancel`` is set (it leaves the
        queue)."""
        shown = None
        with self._cond:
            while True:
                if ticket.cancel.is_set():
                    self._leave(ticket)
                    raise Cancelled()
                if ticket.granted:
                    return
                place = self._place(ticket)
                if on_place is not None and place != shown and place is not None:
                    shown = place
                    on_place(place)
                self._cond.wait(poll)

    def release(self, ticket: Ticket) -> None:
        """The ticket's job ended (done, failed or cancelled): its slot goes to the next."""
        with self._cond:
            self._leave(ticket)

    def place(self, ticket: Ticket) -> tuple[int, int] | None:
        """``(k, n)``: the waiting ticket is the k-th of the n waiting ones in the order the
        queue would grant them now; None once granted or gone."""
        with self._cond:
            return self._place(ticket)

    def drop(self, session) -> int:
        """Cancel every job of ``session``, queued or computing; returns how many."""
        with self._cond:
            tickets = list(self._waiting.get(session, ()))
            if session in self._running:
                tickets.append(self._running[session])
            for t in tickets:
                t.cancel.set()
            self._forget_cancelled(session)
            self._dispatch()
            self._cond.notify_all()
        return len(tickets)

    # --- looking -----------------------------------------------------------------------------
    def running(self) -> list[Ticket]:
        with self._cond:
            return list(self._running.values())

    def waiting(self) -> list[Ticket]:
        """The waiting tickets in the order the queue would grant them now."""
        with self._cond:
            return self._order()

    # --- inside (the condition held) ---------------------------------------------------------
    def _forget_cancelled(self, session) -> None:
        queue = self._waiting.get(session)
        if queue is not None:
            for t in [t for t in queue if t.cancel.is_set()]:
                queue.remove(t)
                t.done = True
            if not queue:
                del self._waiting[session]
        self._tidy_line(session)

    def _tidy_line(self, session) -> None:
        if session not in self._waiting and session not in self._running \
                and session in self._line:
            self._line.remove(session)
            self._served.discard(session)

    def _leave(self, ticket: Ticket) -> None:
        if ticket.done:
            return
        ticket.done = True
        session = ticket.session
        if self._running.get(session) is ticket:
            del self._running[session]
        else:
            queue = self._waiting.get(session)
            if queue is not None and ticket in queue:
                queue.remove(ticket)
                if not queue:
                    del self._waiting[session]
        self._tidy_line(session)
        self._dispatch()
        self._cond.notify_all()

    def _dispatch(self) -> None:
        """Grant free slots: the first session in line with a waiting job and none computing
        takes its oldest job, and goes to the back of the line."""
        for session in list(self._line):  # cancelled jobs give up their place
            self._forget_cancelled(session)
        while len(self._running) < self.slots:
            for session in self._line:
                if session not in self._running and self._waiting.get(session):
                    break
            else:
                return
            ticket = self._waiting[session].popleft()
            if not self._waiting[session]:
                del self._waiting[session]
            ticket.granted = True
            self._running[session] = ticket
            self._line.remove(session)
            self._line.append(session)
            self._served.add(session)

    def _order(self) -> list[Ticket]:
        """The waiting tickets in turn order: each session's first job in line order, then
        each session's second, and so on."""
        queues = [list(self._waiting.get(s, ())) for s in self._line]
        order = []
        for round_ in range(max((len(q) for q in queues), default=0)):
            order.extend(q[round_] for q in queues if len(q) > round_)
        return order

    def _place(self, ticket: Ticket) -> tuple[int, int] | None:
        if ticket.granted or ticket.done:
            return None
        order = self._order()
        for k, t in enumerate(order, 1):
            if t is ticket:
                return k, len(order)
        return None


#: Worker processes that compute at the same time (``LDX_JOB_WORKERS``, default 1: the other
#: core of a 2-core machine stays with the server's event loop).
MAX_WORKERS = max(1, int(os.environ.get("LDX_JOB_WORKERS", "1")))
#: The served app's queue (``views.framework.worker.call`` takes its tickets here).
QUEUE = FairQueue(MAX_WORKERS)
