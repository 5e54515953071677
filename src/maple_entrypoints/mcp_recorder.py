"""What the SDK answers to the requests ``maple-mcp``'s front saw: checked and dropped, or recorded.

The front (:class:`~maple_entrypoints.mcp_wire.Front`) tells the :class:`Recorder` of each
recordable request either that it was answered from the record (:meth:`Recorder.expect`: the
SDK's own answer to it is compared with what was sent and never reaches the client) or that it
was not (:meth:`Recorder.learn`: the SDK's answer is recorded under the request's key). Every line
the SDK writes passes :meth:`Recorder.passes` while the recorder listens. An answer is found by
its start, the line up to the request's id (:func:`~maple_entrypoints.mcp_replay.line_start`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

from maple_entrypoints.mcp_replay import line_start, split_answer

__all__ = ["Recorder"]


class Recorder:
    """Checks, drops and records the SDK's answers; safe from the front's and the SDK's threads.

    ``known`` are the recorded answers by key. ``save`` is given them with the new ones each time
    no recordable request is left unanswered; ``mismatch`` is told (once) the key of a replayed
    request the SDK answered differently, and nothing is saved after that.
    """

    def __init__(
        self,
        known: Mapping[str, str],
        save: Callable[[dict[str, str]], None],
        mismatch: Callable[[str], None],
    ) -> None:
        self.known = dict(known)
        self._save = save
        self._mismatch = mismatch
        self._learning: dict[str, tuple[str, tuple[str, ...]]] = {}  # start -> key, its starts
        self._expected: dict[str, tuple[str, str]] = {}  # answer start -> (key, tail sent)
        self._learned: dict[str, str] = {}
        self._open = True  # requests may still come
        self._spoiled = False
        self._lock = threading.Lock()

    @property
    def listening(self) -> bool:
        """Whether an SDK answer may still need checking or recording."""
        return self._open or bool(self._learning or self._expected)

    def learn(self, starts: Sequence[str], key: str) -> None:
        """Record under ``key`` the SDK's first answer that starts with one of ``starts``."""
        with self._lock:
            for start in starts:
                self._learning.setdefault(start, (key, tuple(starts)))

    def expect(self, start: str, key: str, tail: str) -> None:
        """The SDK will answer ``start`` + ``tail`` (already sent): check it, then drop it."""
        with self._lock:
            self._expected[start] = (key, tail)

    def close(self) -> None:
        """No more requests will be learned or expected."""
        with self._lock:
            self._open = False

    def passes(self, line: bytes) -> bool:
        """Whether the SDK's ``line`` goes to the client (its answer to a replayed one does not)."""
        start = line_start(line)
        if start is None:
            return True
        with self._lock:
            expected = self._expected.pop(start, None)
            key, starts = self._learning.get(start, (None, ()))
        if expected is None and key is None:
            return True
        tail = split_answer(line.decode("utf-8", "replace").rstrip("\n"), start)
        if expected is not None:
            if tail != expected[1]:
                self._spoil(expected[0])
            return False
        if key is not None and tail is not None:
            with self._lock:
                for other in starts:
                    if self._learning.get(other, (None, ()))[1] == starts:
                        del self._learning[other]
                self._learned[key] = tail
            self._save_if_due()
        return True

    def finish(self) -> None:
        """The server stopped: save what was learned, even if some request went unanswered."""
        with self._lock:
            self._open = False
            self._learning.clear()
            self._expected.clear()
        self._save_if_due()

    def _spoil(self, key: str) -> None:
        with self._lock:
            first, self._spoiled = not self._spoiled, True
            self.known.pop(key, None)
        if first:
            self._mismatch(key)

    def _save_if_due(self) -> None:
        with self._lock:
            if self._learning or self._spoiled or not self._learned:
                return
            self.known.update(self._learned)
            self._learned = {}
            answers = dict(self.known)
        self._save(answers)
