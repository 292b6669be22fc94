"""What the trainers share about a run: its config (YAML + command line), its folder, checkpoints.

A run lives in ``runs/{run_name}/``: ``config.yaml`` (the resolved config), TensorBoard
events, ``checkpoint.pt``. Checkpoints are written atomically (temporary file, then
rename) and hold only tensors and plain Python values, so ``torch.load(path,
weights_only=True)`` reads them and a stranger's file cannot run code.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import tempfile
import typing
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

CHECKPOINT = "checkpoint.pt"
CONFIG = "config.yaml"


def _field_docs(cls: type) -> dict[str, str]:
    """The one-line docstring under each dataclass field."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(cls))
    docs, last = {}, None
    for node in tree.body[0].body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            last = node.target.id
        elif isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant) and last:
            docs[last] = str(node.value.value).strip()
            last = None
    return docs


def _check_type(cls: type, name: str, value: Any) -> Any:
    hint = typing.get_type_hints(cls)[name]
    origin = typing.get_origin(hint)
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"config {name}={value!r}: must be true or false")
    elif hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"config {name}={value!r}: must be an int")
    elif hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"config {name}={value!r}: must be a number")
        value = float(value)
    elif hint is str:
        if not isinstance(value, str):
            raise ValueError(f"config {name}={value!r}: must be a string")
    elif origin is dict and (
        not isinstance(value, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value.values())
    ):
        raise ValueError(f"config {name}={value!r}: must be a mapping of names to numbers")
    return value


def config_from(cls: type, values: dict[str, Any]) -> Any:
    """A config dataclass from a mapping; unknown keys and wrong types raise ValueError naming them."""
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise ValueError(f"unknown config key(s) {unknown}; allowed are {names}")
    checked = {k: _check_type(cls, k, v) for k, v in values.items()}
    return cls(**checked)


def parse_config(cls: type, argv: list[str] | None, description: str) -> tuple[Any, str | None]:
    """The config given by ``--config FILE.yaml`` and ``--FIELD VALUE`` overrides; and ``--resume`` if given."""
    docs = _field_docs(cls)
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", metavar="FILE.yaml", help="a YAML file of config fields")
    parser.add_argument("--resume", metavar="runs/NAME", help="continue a run from its last checkpoint")
    for field in dataclasses.fields(cls):
        parser.add_argument(
            f"--{field.name.replace('_', '-')}", dest=field.name, default=None, metavar="VALUE", help=docs.get(field.name, "")
        )
    args = parser.parse_args(argv)
    values: dict[str, Any] = {}
    if args.resume:
        path = Path(args.resume) / CONFIG
        if not path.is_file():
            parser.error(f"--resume {args.resume}: no {CONFIG} there; is it a run folder?")
        values.update(yaml.safe_load(path.read_text()) or {})
    if args.config:
        try:
            loaded = yaml.safe_load(Path(args.config).read_text())
        except OSError as e:
            parser.error(f"--config {args.config}: {e.strerror}")
        if not isinstance(loaded, dict):
            parser.error(f"--config {args.config}: must be a mapping of config fields")
        values.update(loaded)
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        text = getattr(args, field.name)
        if text is None:
            continue
        try:
            values[field.name] = yaml.safe_load(text) if hints[field.name] is not str else text
        except yaml.YAMLError:
            parser.error(f"--{field.name.replace('_', '-')} {text!r}: not a value")
    try:
        config = config_from(cls, values)
    except (ValueError, TypeError) as e:
        parser.error(str(e))
    return config, args.resume


def run_dir(config: Any) -> Path:
    return Path(config.runs_dir) / config.run_name


def write_config(config: Any, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(folder / CONFIG, yaml.safe_dump(dataclasses.asdict(config), sort_keys=False).encode())


def atomic_write_bytes(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def seed_everything(seed: int) -> np.random.Generator:
    """Seed python, numpy's legacy global state (for libraries) and torch; return the run's generator."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """Every random state of the run as plain values (loadable with weights_only=True)."""
    return {
        "numpy": rng.bit_generator.state,
        "python": repr(random.getstate()),
        "torch": torch.get_rng_state(),
    }


def restore_rng_state(rng: np.random.Generator, state: dict[str, Any]) -> None:
    import ast

    rng.bit_generator.state = state["numpy"]
    random.setstate(ast.literal_eval(state["python"]))
    torch.set_rng_state(state["torch"])


def save_checkpoint(path: Path, payload: dict[str, Any]) -> None:
    """Write a checkpoint atomically: a kill at any moment leaves the previous one whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        torch.save(payload, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


SNAPSHOTS = "snapshots"


def save_snapshot(folder: Path, network: torch.nn.Module, config: Any, step: int, seconds: float) -> Path:
    """Keep the network as it is now (``snapshots/step_N.pt``: weights, config, step, training seconds),
    so that learning curves can be measured afterwards against any opponent; plays as ``neural:PATH``."""
    path = Path(folder) / SNAPSHOTS / f"step_{step:012d}.pt"
    payload = {"model": network.state_dict(), "config": dataclasses.asdict(config), "global_step": step, "elapsed": seconds}
    save_checkpoint(path, payload)
    return path


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint, read with ``weights_only=True``; a clear error for a missing or foreign file."""
    path = Path(path)
    if path.is_dir():
        path = path / CHECKPOINT
    if not path.is_file():
        raise ValueError(f"checkpoint {path}: no such file")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch raises many kinds for a bad file
        raise ValueError(f"checkpoint {path}: not a smear-rl checkpoint ({type(e).__name__}: {str(e)[:200]})") from None
    if not isinstance(payload, dict) or "model" not in payload or "config" not in payload:
        raise ValueError(f"checkpoint {path}: not a smear-rl checkpoint (needs 'model' and 'config')")
    return payload
