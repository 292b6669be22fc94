"""Layers import downward only: smear_rl <- smear_env <- smear_nets <- agents <- train <- smear_apps (docs/architecture.md); no module
imports one that imports it back (no circle); no library code imports a command (smear_apps)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
# What each layer may import from the project (its own package always).
ALLOWED = {
    "smear_rl": set(),  # what the floors share: the optional parts, the Ray cluster
    "smear_env": {"smear_rl"},
    "smear_nets": {"smear_rl", "smear_env"},
    "agents": {"smear_rl", "smear_env", "smear_nets"},
    "train": {"smear_rl", "smear_env", "smear_nets", "agents"},
    "smear_apps": {"smear_rl", "smear_env", "smear_nets", "agents", "train"},
}
# Packages a layer must not import at all (the rules know no framework); Ray only in modules named for it.
FORBIDDEN = {
    "smear_rl": {"torch", "ray"},
    "smear_env": {"torch", "ray"},
    "smear_nets": {"ray"},
    "agents": {"ray"},
    "train": {"ray"},
    "smear_apps": {"ray"},
}


RAY_MODULES = {"ray_actors", "on_ray", "cluster", "sweep"}  # the only modules that import Ray (it is optional)
FRAMEWORKS = {"pyspiel", "open_spiel", "rlcard"}
ADAPTERS = {"openspiel_game", "rlcard_env", "interop"}  # the only modules that import OpenSpiel or RLCard (optional)


def entry_point_groups() -> dict[str, set[str]]:
    """Each entry-point group the kit's pyproject declares and the top-level packages its entries load."""
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("entry-points", {})
    return {group: {value.split(":")[0].split(".")[0] for value in entries.values()} for group, entries in declared.items()}


def imports_of(path: Path) -> set[str]:
    """The top-level packages a file imports: by ``import``, by ``importlib.import_module("name")`` of a literal, and
    by ``entry_points(group="G")`` of a group the kit declares (what its entries load): no hidden arrow."""
    names = set()
    groups = entry_point_groups()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            literal = [a.value for a in node.args[:1] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if called == "import_module" and literal:
                names.add(literal[0].split(".")[0])
            if called == "entry_points":
                group = [k.value.value for k in node.keywords if k.arg == "group" and isinstance(k.value, ast.Constant)]
                names.update(groups.get(group[0], set()) if group else set())
    return names


def test_the_import_reader_sees_importlib_and_entry_points(tmp_path):
    hidden = tmp_path / "hidden.py"
    hidden.write_text('import importlib\nimportlib.import_module("agents.registry")\n')
    assert "agents" in imports_of(hidden)
    groups = entry_point_groups()
    for group, packages in groups.items():
        hidden.write_text(f"from importlib.metadata import entry_points\nentry_points(group={group!r})\n")
        assert packages <= imports_of(hidden)
    assert "smear_rl" not in groups  # 0.3.0's arrow from smear_env up to agents (load_agent) is gone


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layers_import_downward_only(layer):
    for path in sorted((ROOT / layer).rglob("*.py")):
        found = imports_of(path)
        upward = (found & set(ALLOWED)) - ALLOWED[layer] - {layer}
        assert not upward, f"{path.relative_to(ROOT)} imports {sorted(upward)}: {layer} may import {sorted(ALLOWED[layer])}"
        banned = found & FORBIDDEN.get(layer, set()) - ({"ray"} if path.stem in RAY_MODULES else set())
        assert not banned, f"{path.relative_to(ROOT)} imports {sorted(banned)}"
        frameworks = found & FRAMEWORKS
        assert not frameworks or path.stem in ADAPTERS, f"{path.relative_to(ROOT)} imports {sorted(frameworks)}: adapters only"


def test_importing_the_kit_imports_neither_openspiel_nor_rlcard():
    import subprocess
    import sys

    code = "import sys, smear_env, agents, smear_nets; print(sorted(m for m in ('pyspiel', 'rlcard') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"


def test_nothing_imports_train():
    for folder in ("smear_env", "smear_nets", "agents", "examples", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            assert "train" not in imports_of(path) or folder == "benchmarks", path


def module_graph() -> dict[str, set[str]]:
    """Each module of the kit and the kit's modules it imports (relative imports resolved; ``from . import x``
    is the module ``x`` when there is one)."""
    paths = {}
    for layer in ALLOWED:
        for path in (ROOT / layer).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            paths[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in paths)
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                subs = {f"{target}.{a.name}" for a in node.names} & set(paths)
                found |= subs if len(subs) == len(node.names) else ({target} & set(paths)) | subs
        graph[name] = found - {name}
    return graph


def test_no_module_imports_one_that_imports_it_back():
    graph = module_graph()
    seen: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(name: str, path: list[str]) -> None:
        seen[name] = 1
        for other in sorted(graph[name]):
            if seen.get(other) == 1:
                cycle = path[path.index(other) :] + [other]
                raise AssertionError("an import circle: " + " -> ".join(cycle))
            if other not in seen:
                walk(other, path + [other])
        seen[name] = 2

    for name in sorted(graph):
        if name not in seen:
            walk(name, [name])
    assert len(graph) > 50  # the walk saw the whole kit


def test_no_library_code_imports_a_command():
    graph = module_graph()
    for name, imported in graph.items():
        if not name.startswith("smear_apps"):
            assert not {m for m in imported if m.startswith("smear_apps")}, f"{name} imports a command: {sorted(imported)}"


def test_a_checkpoint_of_the_first_release_still_loads(tmp_path):
    import torch

    from agents import load_agent
    from smear_nets import load_checkpoint

    shipped = load_checkpoint(ROOT / "smear_nets" / "weights" / "dmc.pt")  # 0.1.0's neural
    legacy = {"model": shipped.model, "config": {"algo": "dmc", "hidden": "256,256", "kitty_size": 3}, "global_step": 1}
    torch.save(legacy, tmp_path / "old.pt")
    old = load_checkpoint(tmp_path / "old.pt")
    assert old.network == shipped.network and old.rules == shipped.rules
    assert load_agent(f"neural:{tmp_path / 'old.pt'}").network is not None


GONE = [
    # 0.3.0's names that 0.4.0 no longer has (CHANGELOG.md: "Old names and new"): no alias, no shim.
    ("nets", "smear_nets"),
    ("nets.shipped", "smear_nets.shipped"),
    ("apps", "smear_apps"),
    ("apps.web.app", "smear_apps.web.app"),
    ("agents.ray_cluster", "smear_rl.cluster"),
    ("smear_env.extras", "smear_rl.extras"),
    ("train.chances", "train.chance_table"),
    ("train.export", "train.tools.export"),
    ("train.exploit", "train.tools.exploit"),
    ("train.sweep", "train.tools.sweep"),
    ("smear_rl.moved", None),
]


@pytest.mark.parametrize(("old", "new"), GONE)
def test_an_old_module_name_is_gone_and_its_new_one_imports(old, new):
    import importlib

    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
    if new is not None:
        importlib.import_module(new)


def test_no_finder_aliases_a_name_in_this_process():
    """No meta-path finder of the kit's maps one module name onto another."""
    import sys

    assert not [f for f in sys.meta_path if type(f).__module__.split(".")[0] in ("smear_rl", "smear_env", "agents", "train")]


def test_the_trainers_import_no_tool():
    """The tools (``train.tools``: exploit, export, sweep) are built on the trainers; no trainer imports one."""
    for name, imported in module_graph().items():
        if name.startswith("train") and not name.startswith("train.tools"):
            assert not {m for m in imported if m.startswith("train.tools")}, f"{name} imports a tool: {sorted(imported)}"
