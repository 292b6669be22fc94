"""Agents for smear-rl behind one interface, found by a registry, and the arena that plays them against each other."""

from .base import Agent, AgentEntry, load_agent, register, registered, spec_help

# The built-in agents: an id, where the class is, what a spec may say to it.
NETWORK_OPTIONS = {"device": str, "any_rules": bool, "suits": int}  # every network agent's (agents.neural)
NETWORKS = ("neural", "dmc", "chance", "distilled")  # the shipped networks, by name (agents.neural.checkpoint_path)
register("random", "agents.random_agent:RandomAgent", summary="uniform over the legal actions")
register("heuristic", "agents.heuristic:HeuristicAgent", summary="the rule-based player of agents/heuristic.py")
register(
    "pimc",
    "agents.pimc:PIMCAgent",
    options={"samples": int, "seconds": float},
    summary="perfect-information Monte-Carlo search over deals consistent with the seat's view",
)
register(
    "neural",
    "agents.neural:NeuralAgent",
    argument="path",
    options=NETWORK_OPTIONS,
    files={"path": NETWORKS},
    summary="a trained network: the shipped one (chance's network taught its values averaged over the orders of the suits), or neural:PATH (neural:A+B: the mean of several networks' values)",
)
register(
    "dmc",
    "agents.neural:DMCAgent",
    options=NETWORK_OPTIONS,
    summary="the first release's network (DMC self-play alone; 0.1.0's neural): the search agent's contracts",
)
register(
    "chance",
    "agents.neural:ChanceAgent",
    options=NETWORK_OPTIONS,
    summary="distilled's card play, contracts valued by the change of the chance of winning the game (q_split)",
)
register(
    "distilled",
    "agents.neural:DistilledAgent",
    options=NETWORK_OPTIONS,
    summary="the neural shipped until 2026-12-03: the search agent's card play distilled (expert iteration), dmc's contracts",
)
register(
    "search",
    "agents.search:SearchAgent",
    options={
        "samples": int,
        "seconds": float,
        "net": str,
        "beliefs": str,
        "blend": float,
        "net_tricks": int,
        "rollouts": int,
        "play_rollouts": int,
        "mix": float,
        "chances": str,
        "infer": float,
        "draws": int,
        "device": str,
    },
    files={"net": NETWORKS, "beliefs": ("uniform",), "chances": ("chance",)},
    summary="the network for the contract, PIMC over deals from a learned model of the hidden cards for the play, blended",
)

__all__ = ["Agent", "AgentEntry", "load_agent", "register", "registered", "spec_help"]
