"""The structure's measures (issue 23's targets): how easy the source is to read, in numbers.

Run with ``python bench/structure.py`` (or ``make structure``); ``tests/test_structure.py``
asserts each target with the same functions, so none can regress. Every measure reads the
source as text (``ast``); nothing is imported or run, except ``duplicates`` where it is on PATH.

- bootstrap importers: modules of ``maple_entrypoints`` outside the bootstrap with any import
  (at any depth, ``TYPE_CHECKING`` ones included) of ``maple_entrypoints.bootstrap``;
- bootstrap exports: the distinct names in the ``__all__`` of the bootstrap's modules;
- module lines: every ``.py`` file under ``src/``, counted with ``wc -l``'s rule;
- longest function: from its ``def`` line to its last line (decorators left out);
- import circles: strongly connected groups of ``src`` modules in the graph of their imports
  (an import under ``if TYPE_CHECKING:`` runs nothing, so it is left out);
- resolve parameters: the parameters of ``resolve_and_report`` in ``maple_core``;
- variable literals: string constants anywhere in ``src`` (docstrings included) that are exactly
  the name of a declared environment variable, outside the module that declares them;
- duplicates: the pairs ``duplicates`` reports on ``src/`` and on ``tests/``.
"""

from __future__ import annotations

import ast
import re
import shutil
import statistics
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
BOOTSTRAP = "maple_entrypoints.bootstrap"
DECLARATIONS = ("maple_entrypoints.configuration", "maple_core.environment")
"""Where the environment's variables are declared (now, and before issue 23)."""
DECLARING_CALLS = {"Variable", "EnvironmentVariable"}


@dataclass(frozen=True)
class Module:
    """One source module: its dotted name, path, text and parsed tree."""

    name: str
    path: Path
    text: str
    tree: ast.Module

    @property
    def lines(self) -> int:
        return self.text.count("\n")

    @property
    def package(self) -> bool:
        return self.path.name == "__init__.py"


def modules(src: Path = SRC) -> dict[str, Module]:
    """Every module under ``src``, by dotted name."""
    found = {}
    for path in sorted(src.rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        text = path.read_text(encoding="utf-8")
        found[name] = Module(name, path, text, ast.parse(text, str(path)))
    return found


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """The ids of the nodes under an ``if TYPE_CHECKING:``."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        test = node.test if isinstance(node, ast.If) else None
        if isinstance(node, ast.If) and isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
            for part in node.body:
                hidden.update(id(n) for n in ast.walk(part))
    return hidden


def imports(module: Module, known: dict[str, Module], *, runtime: bool) -> set[str]:
    """The known modules ``module`` imports (``runtime``: leaving ``TYPE_CHECKING`` ones out)."""
    hidden = _type_checking_nodes(module.tree) if runtime else set()
    targets: set[str] = set()
    for node in ast.walk(module.tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets.add(node.module)
            targets.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {t for t in targets if t in known and t != module.name}


def bootstrap_importers(found: dict[str, Module]) -> list[str]:
    """The entrypoint modules outside the bootstrap that import it."""
    return sorted(
        m.name
        for m in found.values()
        if m.name.startswith("maple_entrypoints")
        and not _within(m.name, BOOTSTRAP)
        and any(_within(t, BOOTSTRAP) for t in imports(m, found, runtime=False))
    )


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _all_of(module: Module) -> list[str]:
    for node in module.tree.body:
        targets = (
            [node.target]
            if isinstance(node, ast.AnnAssign)
            else node.targets
            if isinstance(node, ast.Assign)
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = node.value
            if isinstance(value, ast.List | ast.Tuple):
                return [e.value for e in value.elts if isinstance(e, ast.Constant)]
    return []


def bootstrap_exports(found: dict[str, Module]) -> list[str]:
    """The distinct names the bootstrap's modules list in ``__all__``."""
    names = {n for m in found.values() if _within(m.name, BOOTSTRAP) for n in _all_of(m)}
    return sorted(names)


def functions(found: dict[str, Module]) -> Iterator[tuple[int, str]]:
    """Each function's length in lines and its ``module:name``."""
    for m in found.values():
        for node in ast.walk(m.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                end = node.end_lineno or node.lineno
                yield end - node.lineno + 1, f"{m.name}:{node.name}"


def circles(found: dict[str, Module]) -> list[list[str]]:
    """The groups of modules that import one another round a circle (Tarjan's algorithm)."""
    graph = {name: sorted(imports(m, found, runtime=True)) for name, m in found.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for name in graph:
        if name not in index:
            visit(name)
    return sorted(groups)


def resolve_parameters(found: dict[str, Module]) -> int:
    """How many parameters ``resolve_and_report`` takes."""
    for m in found.values():
        if not m.name.startswith("maple_core"):
            continue
        for node in ast.walk(m.tree):
            if isinstance(node, ast.FunctionDef) and node.name == "resolve_and_report":
                a = node.args
                return len(a.posonlyargs + a.args + a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
    raise LookupError("no resolve_and_report in maple_core")


def declared_variables(found: dict[str, Module]) -> tuple[str, set[str]]:
    """The module that declares the environment's variables, and their names."""
    for name in DECLARATIONS:
        module = found.get(name)
        if module is None:
            continue
        names = {
            call.args[0].value
            for call in ast.walk(module.tree)
            if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id in DECLARING_CALLS
            and call.args
            and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)
        }
        return name, names
    raise LookupError("no module declares the environment's variables")


def variable_literals(found: dict[str, Module]) -> list[str]:
    """Each string constant outside the declaration that is a variable's name (``module:name``)."""
    home, names = declared_variables(found)
    return sorted(
        f"{m.name}:{node.value}"
        for m in found.values()
        if m.name != home
        for node in ast.walk(m.tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    )


def duplicate_pairs(folder: Path) -> int | None:
    """The pairs ``duplicates`` reports in ``folder``; ``None`` without the tool."""
    tool = shutil.which("duplicates")
    if tool is None:
        return None
    done = subprocess.run(
        [tool, "--repo", str(folder), "--most", "1", "--seconds", "300"],
        capture_output=True,
        text=True,
        check=False,
    )
    first = done.stdout.splitlines()[0] if done.stdout else ""
    if first.startswith("no duplicates"):
        return 0
    match = re.match(r"(\d+) pairs?", first)
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Measure:
    """One row: what, where it stood when issue 23 was filed, where it is now, the target."""

    what: str
    today: str
    now: str
    target: str
    ok: bool


def measures(src: Path = SRC, *, with_duplicates: bool = True) -> list[Measure]:
    """Every row of the targets table, measured now."""
    found = modules(src)
    sizes = sorted(m.lines for m in found.values())
    longest, where = max(functions(found))
    importers = bootstrap_importers(found)
    exports = bootstrap_exports(found)
    loops = circles(found)
    parameters = resolve_parameters(found)
    literals = variable_literals(found)
    rows = [
        Measure(
            "Entrypoint modules that import the bootstrap",
            "17",
            str(len(importers)),
            "≤ 6",
            len(importers) <= 6,
        ),
        Measure("Names the bootstrap exports", "37", str(len(exports)), "≤ 8", len(exports) <= 8),
        Measure(
            "Largest module in src/ (Python)",
            "860 lines",
            f"{sizes[-1]} lines",
            "≤ 450",
            sizes[-1] <= 450,
        ),
        Measure(
            "Median module in src/",
            "129 lines",
            f"{statistics.median(sizes):g} lines ({len(sizes)} modules)",
            "≤ 110",
            statistics.median(sizes) <= 110,
        ),
        Measure(
            "Longest function", "287 lines", f"{longest} lines ({where})", "≤ 120", longest <= 120
        ),
        Measure("Import circles among src/ modules", "1", str(len(loops)), "0", not loops),
        Measure("Parameters of the resolve service", "12", str(parameters), "≤ 6", parameters <= 6),
        Measure(
            "Environment-variable names as string literals outside the one declaration",
            "28",
            str(len(literals)),
            "≤ 5",
            len(literals) <= 5,
        ),
    ]
    if with_duplicates:
        pairs = [duplicate_pairs(src), duplicate_pairs(src.parent / "tests")]
        shown = " / ".join("?" if p is None else str(p) for p in pairs)
        ok = pairs[0] is not None and pairs[1] is not None and pairs[0] <= 28 and pairs[1] <= 25
        target = "≤ 28 / ≤ 25"
        rows.append(Measure("duplicates pairs on src/ / tests/", "58 / 42", shown, target, ok))
    return rows


def main() -> int:
    """Print the table; exit 1 when a target is missed."""
    rows = measures()
    print("| Measure | Today | Now | Target | Met |")
    print("|---|---|---|---|---|")
    for row in rows:
        met = "yes" if row.ok else "NO"
        print(f"| {row.what} | {row.today} | {row.now} | {row.target} | {met} |")
    found = modules()
    print()
    print("bootstrap importers:", ", ".join(bootstrap_importers(found)))
    print("bootstrap exports:", ", ".join(bootstrap_exports(found)))
    print("circles:", circles(found))
    print("variable literals:", ", ".join(variable_literals(found)))
    large = [f"{m.name} {m.lines}" for m in found.values() if m.lines > 400]
    print("over 400 lines:", ", ".join(large))
    print("functions over 80 lines:", ", ".join(f"{w} {n}" for n, w in functions(found) if n > 80))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
