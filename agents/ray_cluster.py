"""``agents.ray_cluster`` is :mod:`smear_rl.cluster` (the connection to a Ray cluster is no agent): this name
still imports it, with a warning, for one release."""

import warnings

from smear_rl.cluster import connect, disconnect, need_ray

__all__ = ["connect", "disconnect", "need_ray"]
warnings.warn("agents.ray_cluster is smear_rl.cluster", DeprecationWarning, stacklevel=2)
