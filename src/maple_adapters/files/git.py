"""Find the checked-out branch and the main checkout by reading ``.git``, without running git.

Reading the files gives the same answers as ``git symbolic-ref --short -q HEAD`` and
``git rev-parse --git-common-dir`` (the tests compare them with the real binary) in microseconds,
which keeps the Stop hook and every store call cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["GitCheckout", "find_checkout"]

_HEADS = "ref: refs/heads/"


@dataclass(frozen=True, slots=True)
class GitCheckout:
    """Where a working directory sits in git.

    Attributes:
        root: the main checkout (shared by every worktree), or the directory itself outside git.
        branch: the branch checked out there, or ``None`` (detached HEAD, not a repository).
        git_dir: the directory holding this checkout's ``HEAD``, or ``None`` outside git.
    """

    root: Path
    branch: str | None
    git_dir: Path | None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _git_dir_of(dot_git: Path) -> Path | None:
    if dot_git.is_dir():
        return dot_git
    text = _read(dot_git)
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            target = Path(line[len("gitdir:") :].strip())
            return (dot_git.parent / target).resolve() if not target.is_absolute() else target
    return None


def _branch_in(git_dir: Path) -> str | None:
    head = _read(git_dir / "HEAD")
    if head is None:
        return None
    head = head.strip()
    if head.startswith(_HEADS) and len(head) > len(_HEADS):
        return head[len(_HEADS) :]
    return None


def _common_dir(git_dir: Path) -> Path:
    pointer = _read(git_dir / "commondir")
    if pointer is None or not pointer.strip():
        return git_dir
    target = Path(pointer.strip())
    return target if target.is_absolute() else (git_dir / target).resolve()


def _locate(start: Path) -> tuple[Path, Path] | None:
    for directory in (start, *start.parents):
        dot_git = directory / ".git"
        if not dot_git.exists():
            continue
        git_dir = _git_dir_of(dot_git)
        if git_dir is None:
            return None
        common = _common_dir(git_dir)
        return git_dir, (common.parent if common.name == ".git" else common)
    return None


_LAYOUTS: dict[Path, tuple[Path, Path] | None] = {}


def find_checkout(cwd: Path) -> GitCheckout:
    """Walk up from ``cwd`` to the nearest ``.git`` and read the branch and main checkout.

    A ``.git`` file (a worktree or submodule) is followed through its ``gitdir:`` line; the main
    checkout is the parent of the common git directory when that is named ``.git``, else the
    common directory itself (a bare repository), as Maple resolves it. Where the git directory
    is gets remembered per directory; ``HEAD`` is read on every call, so a branch switch shows at
    once, and a git directory that disappears is looked for again.
    """
    layout = _LAYOUTS.get(cwd)
    if layout is not None:
        branch = _branch_in(layout[0])
        if branch is not None or (layout[0] / "HEAD").exists():
            return GitCheckout(root=layout[1], branch=branch, git_dir=layout[0])
    start = cwd.resolve()
    layout = _locate(start)
    if len(_LAYOUTS) > 256:
        _LAYOUTS.clear()
    _LAYOUTS[cwd] = layout
    if layout is None:
        return GitCheckout(root=start, branch=None, git_dir=None)
    return GitCheckout(root=layout[1], branch=_branch_in(layout[0]), git_dir=layout[0])
