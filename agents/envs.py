"""The envs of ``smear_env`` whose other seats are agents named by spec strings: the convenience the rules
package cannot give, as it loads no agents (``agents.load_agent`` does)."""

from __future__ import annotations

from typing import Any

from smear_env.single_agent import Player, SmearSingleAgentEnv

from .registry import load_agent


def single_agent_env(
    seat: int = 0, partner: Player | str = "heuristic", opponents: Player | str = "random", **settings: Any
) -> SmearSingleAgentEnv:
    """:class:`smear_env.single_agent.SmearSingleAgentEnv` for ``seat``, its partner and opponents agents or agent
    specs (``"heuristic"``, ``"pimc:samples=20"``, ``"neural"``); ``settings`` are the env's (``episode``,
    ``reward``, ``illegal_action``, ``render_mode``, ``rules`` or rule settings)."""
    return SmearSingleAgentEnv(
        seat,
        load_agent(partner) if isinstance(partner, str) else partner,
        load_agent(opponents) if isinstance(opponents, str) else opponents,
        **settings,
    )
