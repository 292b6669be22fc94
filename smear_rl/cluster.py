"""Ray for the kit's optional cluster paths (the arena's ``--backend ray``, DMC's Ray actors, sweeps):
whether it is installed, joining a cluster or starting a local one, and leaving what this process started.
Ray is imported only when a cluster is joined."""

from __future__ import annotations

from .extras import need

_STARTED_HERE = False  # whether this process started the local Ray it uses (and so shuts it down)


def need_ray(what: str) -> None:
    """A ValueError (:class:`smear_rl.extras.MissingExtraError`) naming the extra unless Ray is installed
    (found, not imported: it is optional)."""
    need("ray", what)


def connect(address: str | None) -> None:
    """Join the Ray cluster at ``address``, or start a local one (``None``); once per process."""
    global _STARTED_HERE
    import ray

    if ray.is_initialized():
        return
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(log_to_driver=False, include_dashboard=False)
        _STARTED_HERE = True


def disconnect() -> None:
    """Shut down the local Ray this process started (a cluster it joined stays up)."""
    global _STARTED_HERE
    import ray

    if _STARTED_HERE and ray.is_initialized():
        ray.shutdown()
        _STARTED_HERE = False
