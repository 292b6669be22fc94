"""Agents for smear-rl behind one interface, found by a registry, and the arena that plays them against each other."""

from .base import Agent
from .envs import single_agent_env
from .registry import AgentEntry, Bounds, load_agent, register, registered, spec_help

# The built-in agents: an id, where the class is, what a spec may say to it.
NETWORK_OPTIONS = {"device": str, "any_rules": bool, "suits": int}  # every network agent's (agents.neural)
NETWORKS = (
    "neural",
    "distilled",
    "chance",
    "dmc",
    "v0.3.0",
)  # smear_nets.shipped.NETWORKS's names, spelled out: importing smear_nets imports torch
SAMPLING = {"samples": Bounds(1, 100_000), "seconds": Bounds(0, 3600, above=True)}  # PIMC's, and so the search's
register("random", "agents.random_agent:RandomAgent", summary="uniform over the legal actions")
register("heuristic", "agents.heuristic:HeuristicAgent", summary="the rule-based player of agents/heuristic.py")
register(
    "pimc",
    "agents.pimc:PIMCAgent",
    options={"samples": int, "seconds": float},
    bounds=SAMPLING,
    summary="perfect-information Monte-Carlo search over deals consistent with the seat's view",
)
register(
    "neural",
    "agents.neural:NeuralAgent",
    argument="path",
    options=NETWORK_OPTIONS,
    files={"path": NETWORKS},
    bounds={"suits": Bounds(1, 24)},  # the 4! orders of the suits (smear_nets.check_suits, which the network runs)
    summary="a trained network: the shipped one (chance's network taught its values averaged over the orders of the suits), neural:NAME another shipped one (distilled, chance, dmc), neural:PATH a checkpoint (neural:A+B: the mean of several networks' values)",
)
register(
    "search",
    "agents.search:SearchAgent",
    options={
        "preset": str,
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
    files={"net": NETWORKS, "beliefs": ("uniform",), "chances": ("win_chances",)},
    bounds=SAMPLING
    | {
        "blend": Bounds(0, 100),  # the network's weight beside the search value
        "mix": Bounds(0, 1),  # the rollouts' share of a card's search value
        "infer": Bounds(0, 100),  # the temperature of inference from the play (points; 0: off)
        "net_tricks": Bounds(0, 6),  # tricks the network plays alone (a hand has six, R11)
        "rollouts": Bounds(0, 100_000),
        "play_rollouts": Bounds(0, 100_000),
        "draws": Bounds(1, 64),
    },
    summary="the network for the contract, PIMC over deals from a learned model of the hidden cards for the play, blended (presets: pimc, rollouts, chance)",
)
register(
    "rlcard",
    "agents.interop:RLCardAgent",
    argument="path",
    summary="an RLCard DQN agent trained on rlcard.make('smear'): rlcard:PATH, its checkpoint (pip install 'smear-rl[rlcard]')",
)
register(
    "ismcts",
    "agents.interop:ISMCTSAgent",
    options={"simulations": int, "uct_c": float, "rollouts": int},
    bounds={"simulations": Bounds(1, 100_000), "uct_c": Bounds(0, 100, above=True), "rollouts": Bounds(1, 1000)},
    summary="OpenSpiel's information-set MCTS over the hand in progress (pip install 'smear-rl[openspiel]')",
)
__all__ = ["Agent", "AgentEntry", "Bounds", "load_agent", "register", "registered", "single_agent_env", "spec_help"]
