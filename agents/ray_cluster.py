"""``agents.ray_cluster`` is :mod:`smear_rl.cluster` (the connection to a Ray cluster is no agent): this name
still imports it, with a warning, for one release."""

from smear_rl.moved import moved

moved("agents.ray_cluster", "smear_rl.cluster")
