"""How ``wait_for_comments`` waits: one watch per branch, shared by every wait on it.

A wait drives :func:`~maple_core.waiting.wait_plan` on the branch's watch: it lists on a
worker thread and holds no thread while it sleeps. The waits one change wakes share one read
of the branch (:meth:`Watches.look`) and, where they would answer alike, one answer
(:meth:`Watches.answer`), so a hundred of them cost one read and one serialisation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context

from maple_core.claims import Claim
from maple_core.comments import Comment
from maple_core.cursor import FreshComments
from maple_core.errors import MapleError
from maple_core.listing import look
from maple_core.ports import ChangeSignal, CommentStore
from maple_core.wait import PROGRESS_INTERVAL_MS
from maple_core.waiting import Look, Pick, Sleep, advance, wait_plan

__all__ = [
    "Renewal",
    "SharedRead",
    "Watch",
    "Watches",
    "wait_for_fresh",
]

_SIGNAL_SLICE_S = 0.25


_RELIST_S = 5.0  # a safety net under the change signal


_WATCH_THREADS = 16  # signal slices running at once, across every branch waited on


_ANSWERS_KEPT = 64  # branches whose last answer is kept for the waits answering alike

T = TypeVar("T")


class Renewal(Protocol):
    """The session's claims, renewed while it waits (its ``ClaimSession``)."""

    def renewal_due(self) -> bool:
        """Whether a renewal is due (no I/O: asked on the event loop)."""
        ...

    def renew_due(self) -> None:
        """Renew what is due (blocking: run on a worker thread)."""
        ...


@dataclass(frozen=True, eq=False)
class _Answer:
    """A wait's answer, and what it was made from."""

    since: str | None
    cursor: str
    comments: tuple[Comment, ...]
    claimed: tuple[tuple[str, Claim], ...]
    value: object

    def made_from(
        self,
        since: str | None,
        cursor: str,
        comments: Sequence[Comment],
        claimed: tuple[tuple[str, Claim], ...],
    ) -> bool:
        """Whether the answer was made from these very comments (the same objects, read once)."""
        return (
            self.since == since
            and self.cursor == cursor
            and self.claimed == claimed
            and len(self.comments) == len(comments)
            and all(kept is given for kept, given in zip(self.comments, comments, strict=True))
        )


@dataclass(eq=False)
class Watch:
    """One branch's change signal, shared by every wait on the branch."""

    signal: ChangeSignal
    token: Hashable = None  # the change token of a wait's read of the branch (see ``note``)
    seeded: bool = False
    waits: int = 0
    generation: int = 0  # how many changes the signal has seen
    running: bool = False  # one wait is running the signal's slices
    poke: anyio.Event = field(default_factory=anyio.Event)
    reading: SharedRead | None = None  # a read of the branch in flight, for every look to share
    current: bool = True  # ``token`` is the signal's latest (else the next read's is taken)

    def wake(self) -> None:
        """Wake every wait sleeping on this branch."""
        self.poke.set()
        self.poke = anyio.Event()

    def note(self, token: Hashable) -> None:
        """A wait read the branch, and that read's change token was ``token``.

        The first read seeds the watch, so a wait's first look is one read of the store (the
        token comes with it). A later read whose token differs saw a change: every wait on the
        branch looks again, so none can sleep past it.
        """
        if not self.seeded:
            self.token, self.seeded = token, True
        elif not self.current:  # the signal counted this change already: only learn its token
            self.token, self.current = token, True
        elif token != self.token:
            self.token, self.generation = token, self.generation + 1
            self.wake()


@dataclass(eq=False)
class SharedRead:
    """One read of a branch that every wait looking meanwhile takes its answer from."""

    done: anyio.Event = field(default_factory=anyio.Event)
    answer: tuple[list[Comment], Hashable] | None = None


class Watches:
    """Pending waits share one change signal per branch, and one of them at a time waits on it.

    Were every wait to wait on the signal itself, each would hold a worker thread slice after
    slice: 120 of them would take all 40 of anyio's threads, and the other tools (and the stdio
    transport, which reads and writes on those threads) would queue behind them for seconds. Here
    the one wait running a branch's signal does so on threads of its own limiter; the others
    sleep on an event, holding no thread, until it reports a change or steps down (its own wait
    ended), when another takes over.
    """

    def __init__(self, store: CommentStore) -> None:
        self._store = store
        self._watches: dict[str, Watch] = {}
        self._limiter: anyio.CapacityLimiter | None = None
        self._answers: dict[str, _Answer] = {}  # the last answer made on each branch

    async def join(self, branch: str) -> Watch:
        """The branch's watch, counting one more wait on it (:meth:`leave` when it ends)."""
        watch = self._watches.get(branch)
        if watch is None:
            watch = self._watches[branch] = Watch(self._store.changes(branch))
        watch.waits += 1
        return watch

    def leave(self, branch: str, watch: Watch) -> None:
        """One wait on the branch ended; the last one forgets the watch."""
        watch.waits -= 1
        if watch.waits == 0 and self._watches.get(branch) is watch:
            del self._watches[branch]

    async def look(
        self, watch: Watch, read: Callable[[], tuple[list[Comment], Hashable]]
    ) -> tuple[list[Comment], Hashable]:
        """The branch's comments and change token, from a read in flight if there is one.

        A hundred waits woken by one comment then cost one read of the store, not a hundred.
        Sharing is safe because the answer carries the change token of its own read: a change
        after it moves the signal at once, and every wait looks again.
        """
        shared = watch.reading
        if shared is not None:
            await shared.done.wait()
            if shared.answer is not None:
                return shared.answer
            return await anyio.to_thread.run_sync(read)  # that read failed: read for oneself
        shared = watch.reading = SharedRead()
        try:
            shared.answer = await anyio.to_thread.run_sync(read)
            return shared.answer
        finally:
            watch.reading = None
            shared.done.set()

    def answer(
        self,
        branch: str,
        since: str | None,
        cursor: str,
        shown: Sequence[Comment],
        claimed: dict[str, Claim],
        make: Callable[[], T],
    ) -> T:
        """The answer ``make`` builds for a wait: made once for the waits that answer alike.

        ``shown`` are the comments the wait found from ``since``, as its session shows them
        (others' ``claimed``), and ``cursor`` the one it moves on to. The waits one change
        woke found the same comment objects (their read was shared), so the first one's answer
        is every other's with the same cursor and claims: it is built and serialised once, not
        once a wait. Comments read again are new objects, and a new answer is built for them.
        """
        held = tuple(sorted(claimed.items(), key=lambda item: item[0]))
        kept = self._answers.get(branch)
        if kept is not None and kept.made_from(since, cursor, shown, held):
            return kept.value  # type: ignore[return-value]  # made by ``make`` for this key
        value = make()
        self._answers.pop(branch, None)
        self._answers[branch] = _Answer(since, cursor, tuple(shown), held, value)
        while len(self._answers) > _ANSWERS_KEPT:
            del self._answers[next(iter(self._answers))]
        return value

    async def changed(self, watch: Watch, seen: int, timeout: float) -> None:
        """Return once the branch changed after generation ``seen``, or after ``timeout`` s."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(_WATCH_THREADS)
        deadline = anyio.current_time() + timeout
        with anyio.move_on_after(timeout):
            while watch.generation == seen and anyio.current_time() < deadline:
                if watch.running:
                    await watch.poke.wait()
                    continue
                watch.running = True
                try:
                    await self._run(watch, seen, deadline, self._limiter)
                finally:
                    watch.running = False
                    watch.wake()  # a change to read, or the signal to take over

    @staticmethod
    async def _run(
        watch: Watch, seen: int, deadline: float, limiter: anyio.CapacityLimiter
    ) -> None:
        """Wait on the signal in short slices until it changes or ``deadline`` passes."""
        while watch.generation == seen:
            step = min(_SIGNAL_SLICE_S, deadline - anyio.current_time())
            if step <= 0:
                return
            changed = await anyio.to_thread.run_sync(
                watch.signal.wait, watch.token, step, abandon_on_cancel=True, limiter=limiter
            )
            if changed:
                # The waits woken now read the branch at once, and the first read's token is
                # the watch's (``note``): no query of its own between the change and the looks.
                watch.current, watch.generation = False, watch.generation + 1


async def wait_for_fresh(
    watches: Watches,
    store: CommentStore,
    branch: str,
    cursor: str | None,
    budget_ms: int,
    ctx: Context | None,
    report: Callable[[str], None],
    *,
    pick: Pick | None = None,
    renew: Renewal | None = None,
) -> FreshComments:
    """Drive :func:`~maple_core.waiting.wait_plan` on the branch's shared watch.

    ``pick`` chooses what a look returns; ``renew`` renews the session's claims after every look
    that finds a renewal due (on a worker thread). The wait lists on a worker thread, holds no
    thread while it sleeps, looks again when the watch says the branch changed (or every few
    seconds, or when a claim lapses), stops at once when cancelled, and reports progress to
    ``ctx`` every 15 s (without ``ctx``, as in a task, it reports none).
    """
    plan = wait_plan(
        cursor,
        budget_ms,
        anyio.current_time,
        relist_s=_RELIST_S,
        progress_s=PROGRESS_INTERVAL_MS / 1000 if ctx is not None else None,
        pick=pick,
    )
    watch = await watches.join(branch)
    read_all = functools.partial(look, store, branch, report=report)
    seen = watch.generation
    reply: Sequence[Comment] | bool | None = None
    try:
        while not isinstance(step := advance(plan, reply), FreshComments):
            if isinstance(step, Look):
                seen = watch.generation
                reply, token = await watches.look(watch, read_all)
                watch.note(token)
                if renew is not None and renew.renewal_due():
                    await anyio.to_thread.run_sync(renew.renew_due)
            elif isinstance(step, Sleep):
                await watches.changed(watch, seen, step.seconds)
                reply = watch.generation != seen
            else:
                if ctx is not None:
                    message = f"Waiting for comments on {branch}"
                    held_back = await anyio.to_thread.run_sync(_held_back, watch.signal)
                    if held_back:
                        message += f"; {held_back}"
                    await ctx.report_progress(step.elapsed, step.total, message)
                reply = None
    finally:
        watches.leave(branch, watch)
    return step


def _held_back(signal: ChangeSignal) -> str:
    """What holds the signal's polling back (GitHub's rate budget), if it can say; else ``""``."""
    status = getattr(signal, "status", None)
    try:
        said = status() if callable(status) else ""
    except (MapleError, OSError):  # a progress note is never worth failing a wait for
        return ""
    return said if isinstance(said, str) else ""
