"""The documentation is generated from the code, or checked against it."""

from pathlib import Path

import smear_env

README = (Path(__file__).parent.parent / "README.md").read_text()
ENV_PAGE = (Path(__file__).parent.parent / "docs" / "environment.md").read_text()


def test_env_page_observation_table_matches_the_code():
    assert smear_env.layout_table() in ENV_PAGE


def test_env_page_dimensions_match_the_code():
    assert f"float32[{smear_env.OBS_DIM}]" in ENV_PAGE
    assert f"float32[{smear_env.STATE_DIM}]" in ENV_PAGE
    assert f"int8[{smear_env.NUM_ACTIONS}]" in ENV_PAGE
    assert f"Discrete({smear_env.NUM_ACTIONS})" in README and f"{smear_env.OBS_DIM}-float" in README


def test_readme_is_a_front_page():
    """At most 150 lines; the details live in docs/; release notes live in the CHANGELOG (#67)."""
    assert len(README.splitlines()) <= 150
    assert "previous release" not in README and "release before" not in README


def test_env_docstring_carries_the_layout():
    import sys

    doc = sys.modules["smear_env.smear_v0"].__doc__
    assert smear_env.layout_table().splitlines()[1] in doc
    assert f"({smear_env.OBS_DIM},)" in doc


def test_action_table_names_round_trip():
    for action in range(smear_env.NUM_ACTIONS):
        assert smear_env.parse_action(smear_env.action_name(action)) == action
    assert len(smear_env.action_table().splitlines()) == smear_env.NUM_ACTIONS


def test_readme_python_examples_run(tmp_path, monkeypatch):
    import re

    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)


ROOT = Path(__file__).parent.parent
RULE_ID = r"\bR1[0-6](?:v-[ab]|[a-d]|v)?\b|\bR[1-9](?:v|[a-d])?\b"


def test_every_rule_id_named_in_the_code_is_in_docs_rules():
    import re

    rules_doc = (ROOT / "docs" / "rules.md").read_text()
    named: dict[str, str] = {}
    for folder in ("smear_env", "smear_nets", "agents", "train"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for rule in re.findall(RULE_ID, path.read_text()):
                named.setdefault(rule, str(path.relative_to(ROOT)))
    assert {"R1", "R7v", "R13d", "R15v-a", "R15v-b", "R16"} <= set(named)
    missing = {rule: where for rule, where in named.items() if not re.search(rf"\*\*{re.escape(rule)}\b", rules_doc)}
    assert not missing, f"rule ids named in the code but not defined in docs/rules.md: {missing}"


def test_relative_links_in_the_readme_and_docs_resolve():
    import re

    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    checked = 0
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+://", target) or target.startswith(("#", "mailto:")):
                continue
            path = (page.parent / target.split("#")[0]).resolve()
            assert path.exists(), f"{page.relative_to(ROOT)} links to {target}, which does not exist"
            checked += 1
    assert checked >= 5
    assert "../shared" not in (ROOT / "README.md").read_text()


def public_api() -> dict[str, object]:
    """Every public name the API reference documents: the packages' ``__all__``, the arena, the built-in
    agents' classes, the single-seat env, and the trainers' configs and entry points."""
    import importlib
    import inspect

    import agents
    import smear_nets

    names: dict[str, object] = {}
    for package in (smear_env, agents, smear_nets):
        for name in package.__all__:
            names[f"{package.__name__}.{name}"] = getattr(package, name)
    for module_name, members in {
        "agents.arena": None,
        "smear_apps.web.app": None,
        "smear_apps.web.tables": None,
        "smear_apps.web.replay": None,
        "smear_env.single_agent": ["SmearSingleAgentEnv"],
        "train.config": ["RunConfig", "Start", "find_config", "builtin_configs"],
        "train.dmc": ["Config", "train"],
        "train.ppo": ["Config", "train"],
    }.items():
        module = importlib.import_module(module_name)
        if members is None:
            members = [
                n for n, v in vars(module).items() if not n.startswith("_") and getattr(v, "__module__", None) == module_name
            ]
        names.update({f"{module_name}.{n}": getattr(module, n) for n in members})
    for entry in agents.registered():
        module, _, cls = entry.entry_point.partition(":")
        names[entry.entry_point.replace(":", ".")] = getattr(importlib.import_module(module), cls)
    for qualified, obj in list(names.items()):
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if not attr.startswith("_") and (
                    inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod))
                ):
                    names[f"{qualified}.{attr}"] = value
    return names


def test_public_names_have_docstrings():
    import inspect

    missing = []
    for name, obj in public_api().items():
        if not (inspect.isclass(obj) or callable(obj) or isinstance(obj, (property, classmethod, staticmethod))):
            continue  # constants are documented where the reference lists them
        target = obj.__func__ if isinstance(obj, (classmethod, staticmethod)) else obj
        if not (getattr(target, "__doc__", None) or "").strip():
            missing.append(name)
    assert not missing, f"public names without a docstring: {sorted(missing)}"


def test_every_config_field_and_rule_setting_has_a_docstring():
    """``--help`` and the API reference show each field's one-line docstring (the string right after it)."""
    import ast
    import dataclasses
    import inspect
    import textwrap

    from train import config, dmc, ppo

    for cls in (config.RunConfig, dmc.Config, ppo.Config, smear_env.Rules):
        body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
        documented = {
            node.target.id
            for node, after in zip(body, body[1:], strict=False)
            if isinstance(node, ast.AnnAssign) and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
        }
        own = {f.name for f in dataclasses.fields(cls)} - {
            f.name for base in cls.__bases__ if dataclasses.is_dataclass(base) for f in dataclasses.fields(base)
        }
        assert own <= documented, f"{cls.__module__}.{cls.__name__}: fields without a docstring: {sorted(own - documented)}"


def test_the_site_builds_strictly_offline_with_the_api_and_the_notebooks(tmp_path):
    """``make docs``' build: strict, and a page loads nothing from another host (no CDN)."""
    import re
    import subprocess
    import sys

    out = tmp_path / "html"
    cmd = [sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-n", "-q", "-b", "html", str(ROOT / "docs"), str(out)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    pages = {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*.html")}
    external = {
        page: found
        for page, text in pages.items()
        if (found := re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(?:https?:)?//[^"]+', text))
    }
    assert not external, f"pages that load from another host: {external}"
    api = pages["api/train.html"]
    assert "find_config" in api and "learning_rate" in api and "Adam learning rate" in api
    assert "run_match" in pages["api/agents.html"] and "SmearVectorEnv" in pages["api/smear_env.html"]
    assert "Legal: pass, bid 2" in pages["notebooks/quickstart.html"]  # a stored output, shown
    assert "<img" in pages["notebooks/train_and_evaluate.html"]  # its plots


def test_the_recipe_page_lists_every_setting_of_the_recipe():
    """docs/recipe.md's settings table has a row for each field of ``train.recipe.Config`` (a stage's as
    ``exit.teacher``), and no other."""
    import dataclasses
    import re

    from train.recipe import Config
    from train.stages import Stage

    rows = re.findall(r"^\| `([\w.]+)` \| `", (ROOT / "docs" / "recipe.md").read_text(), flags=re.M)
    config = Config()
    fields = [
        f"{f.name}.{g.name}" if isinstance(getattr(config, f.name), Stage) else f.name
        for f in dataclasses.fields(config)
        for g in (dataclasses.fields(getattr(config, f.name)) if isinstance(getattr(config, f.name), Stage) else [f])
    ]
    assert rows == fields


def test_the_architecture_page_names_only_paths_that_exist_and_settings_where_they_are():
    """docs/architecture.md: every repository path it names exists, and each file of its settings table names
    the setting (the table was made by grep; a file that stops naming a setting must leave it)."""
    import re

    text = (ROOT / "docs" / "architecture.md").read_text()
    paths = set(
        re.findall(
            r"`((?:smear_env|smear_nets|agents|train|smear_apps|tests|benchmarks|experiments|configs|docs)/[\w./-]*)`", text
        )
    )
    assert len(paths) > 20
    for path in sorted(paths):
        assert (ROOT / path.rstrip("/")).exists() or any(ROOT.glob(path)), (
            f"docs/architecture.md names {path}, which does not exist"
        )
    rows = re.findall(r"^\| `(\w+)` \| R[\w ,-]+ \| (.+) \|$", text, flags=re.M)
    assert len(rows) == 7
    for setting, files in rows:
        for path in re.findall(r"`([\w/]+\.py)`", files):
            assert setting in (ROOT / path).read_text(), f"docs/architecture.md says {path} names {setting}; it does not"


def test_no_page_holds_a_placeholder_for_a_figure():
    """A figure is measured before its page lands: no ``FIGURES_...``, TODO or TBD left in the docs or the README."""
    import re

    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        if "_build" in page.parts:
            continue
        found = re.findall(r"\bFIGURES_\w*|\bTODO\b|\bTBD\b", page.read_text())
        assert not found, f"{page.relative_to(ROOT)} holds {found}"


def test_results_hold_one_figure_a_row_with_its_date_seed_and_command():
    """docs/results.md says what stands: each row one figure (no "A / B" pairs, no second date inside
    it: a superseded figure goes to the CHANGELOG or the research pages), with one date, one seed and a command."""
    import re

    rows = [line for line in (ROOT / "docs" / "results.md").read_text().splitlines() if line.startswith("| ")]
    measured = [r for r in rows if not r.startswith(("| claim |", "| --- |"))]
    assert len(measured) >= 40
    for row in measured:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert len(cells) == 5, row
        _claim, figure, date, seed, command = cells
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}|-", date), row
        assert re.fullmatch(r"\d+|-", seed), row
        assert " / " not in figure and not re.search(r"\d{4}-\d{2}-\d{2}", figure), row
        assert command, row
