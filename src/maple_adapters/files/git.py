"""Find the checked-out branch and the main checkout by reading ``.git``, without running git.

Reading the files gives the same answers as ``git symbolic-ref --short -q HEAD`` and
``git rev-parse --git-common-dir`` (the tests compare them with the real binary) in microseconds.
It uses :mod:`os.path` rather than :mod:`pathlib` because the Stop hook, which must start as fast
as a bare interpreter, runs it.
"""

from __future__ import annotations

import os

from maple_core.frozen import Frozen

__all__ = ["GitCheckout", "find_checkout"]

_HEADS = "ref: refs/heads/"


class GitCheckout(Frozen):
    """Where a working directory sits in git.

    Attributes:
        root: the main checkout (shared by every worktree), or the directory itself outside git.
        branch: the branch checked out there, or ``None`` (detached HEAD, not a repository).
        git_dir: the directory holding this checkout's ``HEAD``, or ``None`` outside git.
    """

    __slots__ = ("branch", "git_dir", "root")
    root: str
    branch: str | None
    git_dir: str | None

    def __init__(self, root: str, branch: str | None, git_dir: str | None) -> None:
        self._set(root=root, branch=branch, git_dir=git_dir)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def _git_dir_of(dot_git: str) -> str | None:
    if os.path.isdir(dot_git):
        return dot_git
    text = _read(dot_git)
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            target = line[len("gitdir:") :].strip()
            return os.path.realpath(os.path.join(os.path.dirname(dot_git), target))
    return None


def _branch_in(git_dir: str) -> str | None:
    head = _read(os.path.join(git_dir, "HEAD"))
    if head is None:
        return None
    head = head.strip()
    if head.startswith(_HEADS) and len(head) > len(_HEADS):
        return head[len(_HEADS) :]
    return None


def _common_dir(git_dir: str) -> str:
    pointer = _read(os.path.join(git_dir, "commondir"))
    if pointer is None or not pointer.strip():
        return git_dir
    return os.path.realpath(os.path.join(git_dir, pointer.strip()))


def _locate(start: str) -> tuple[str, str] | None:
    directory = start
    while True:
        dot_git = os.path.join(directory, ".git")
        if os.path.lexists(dot_git):
            git_dir = _git_dir_of(dot_git)
            if git_dir is None:
                return None
            if not os.path.exists(os.path.join(git_dir, "HEAD")):
                # Not a repository (git needs HEAD): an empty ``.git`` such as a sandbox's mount
                # point. Keep looking upwards, as git does.
                parent = os.path.dirname(directory)
                if parent == directory:
                    return None
                directory = parent
                continue
            common = _common_dir(git_dir)
            root = os.path.dirname(common) if os.path.basename(common) == ".git" else common
            return git_dir, root
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


_LAYOUTS: dict[str, tuple[str, str] | None] = {}


def find_checkout(cwd: str | os.PathLike[str]) -> GitCheckout:
    """Walk up from ``cwd`` to the nearest ``.git`` and read the branch and main checkout.

    A ``.git`` file (a worktree or submodule) is followed through its ``gitdir:`` line; the main
    checkout is the parent of the common git directory when that is named ``.git``, else the
    common directory itself (a bare repository), as Maple resolves it. Where the git directory
    is gets remembered per directory; ``HEAD`` is read on every call, so a branch switch shows at
    once, and a git directory that disappears is looked for again.
    """
    key = os.fspath(cwd)
    layout = _LAYOUTS.get(key)
    if layout is not None:
        branch = _branch_in(layout[0])
        if branch is not None or os.path.exists(os.path.join(layout[0], "HEAD")):
            return GitCheckout(layout[1], branch, layout[0])
    start = os.path.realpath(key)
    layout = _locate(start)
    if len(_LAYOUTS) > 256:
        _LAYOUTS.clear()
    _LAYOUTS[key] = layout
    if layout is None:
        return GitCheckout(start, None, None)
    return GitCheckout(layout[1], _branch_in(layout[0]), layout[0])
