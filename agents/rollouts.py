"""Decisions valued by playing the hand out: rollouts of a network policy over sampled deals.

At a bid, a trump, a discard or a card, the hidden cards are dealt (``smear_env.DealSampler``,
from a learned model of the hidden cards or uniformly, always consistent with the seat's view),
and for every legal action the rest of the hand is played on each deal by the network at every
seat, each seat deciding from its own observation, as in a real game. An action's value is
the mean over the deals of the hand's score margin for the acting team (the unit of a DMC
network's values). Every action is played on the same deals, so their differences are not
blurred by which deal each one drew.

This is the policy-improvement step that double-dummy search cannot give: the play after the
decision is the network's own imperfect-information play, not open-card play. The rollouts
run in lockstep on the batched engine (``SmearVectorEnv.deal_hands``, then the hand's actions
so far), one network call per step for every deal and action.

**Inference from the play** (``infer=T``, a temperature in the network's unit; 0: off): the deals
are drawn ``draws`` times over, and each is weighed by how likely the other seats' bids, trump
and cards seen so far are under the network's play on it: at each of those actions the seat's
softmax over its legal actions' values divided by ``T``, their product over the hand (another
bidder's discards are not seen, so they do not count). ``deals`` of them are kept by systematic
resampling on those weights. The policy the deals are weighed by is the rollouts' own: against
that network the weights are the true odds of what was seen (a deal on which it would have
bid otherwise is unlikely), which a model of the hidden cards trained on other play, marginal
card by card, cannot give. (Policy-based inference in determinized search: Rebstock, Solinas,
Buro and Sturtevant, 2019, for Skat.)
"""

from __future__ import annotations

import numpy as np

from smear_env import DealSampler, Game, Phase, Rules, SeatView, SmearVectorEnv
from smear_env.actions import DISCARD_BASE, PLAY_BASE, TRUMP_BASE, bid_action
from smear_env.cards import SUITS
from smear_env.view import CARD_INDEX

from .chances import Chances
from .neural import NeuralAgent

CONTRACT_PHASES = (Phase.BID, Phase.TRUMP, Phase.DISCARD)


def deal_of(view: SeatView, places: list[list[int]], rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """The whole deal (a ``SmearVectorEnv.deal_hands`` deck: six cards a seat in seat order, then the
    kitty) that the sampled hidden cards ``places`` (``DealSampler.deal``) complete at a decision of
    ``view`` (bid, trump, discard or play), and the hand's actions so far (bids, trump, discards, the
    cards played), which replayed from that deal lead to ``view``'s position.

    A seat was dealt the cards it holds and those it played. When another seat is the bidder, which
    of its cards came from the kitty nobody else knows: ``rng`` draws ``kitty_size`` of them (with its
    sampled discards) as the ones it picked up; the position is the same for every draw but for that
    bidder's own memory of its pick-up."""
    if view.phase not in (*CONTRACT_PHASES, Phase.PLAY):
        raise ValueError(f"deal_of: a decision of the hand (bid, trump, discard, play) is needed, not {view.phase.name}")
    hands: list[list[int]] = [[], [], [], []]
    others = [s for s in range(4) if s != view.seat]
    for s, cards in zip(others, places[:3], strict=True):
        hands[s] = list(cards)
    hands[view.seat] = [CARD_INDEX[c] for c in view.hand]
    plays = [(s, CARD_INDEX[c]) for s, c in [*(p for trick in view.tricks for p in trick.plays), *view.trick]]
    for s, c in plays:
        hands[s].append(c)
    picked: list[int] = []
    discarded: list[int] = []
    if view.seat == view.bidder:
        picked = [CARD_INDEX[c] for c in view.picked_up or ()]
        discarded = [CARD_INDEX[c] for c in view.discards or ()]
    elif view.phase == Phase.PLAY and view.bidder is not None and view.rules.kitty_size:
        discarded = list(places[3])
        held = hands[view.bidder] + discarded
        picked = [held[i] for i in sorted(rng.choice(len(held), view.rules.kitty_size, replace=False).tolist())]
    if view.bidder is not None:
        hands[view.bidder] = [c for c in hands[view.bidder] + discarded if c not in picked]
    history = [bid_action(bid) for _, bid in view.bids]
    if view.trump is not None:
        history.append(TRUMP_BASE + SUITS.index(view.trump))
    history += [DISCARD_BASE + c for c in discarded] + [PLAY_BASE + c for _, c in plays]
    return [c for hand in hands for c in hand] + picked + list(places[4]), history


def play_out(
    env: SmearVectorEnv,
    actions: np.ndarray,
    policy: NeuralAgent,
    seat: np.ndarray,
    scores: np.ndarray,
    dealer: np.ndarray,
    chances: Chances | None,
    playing: np.ndarray,
) -> np.ndarray:
    """Each game of ``env``, from ``actions`` on, played to the end of its hand by ``policy`` at every seat:
    the hand's margin for ``seat``'s team, or with ``chances`` the change it makes to that team's win
    chance from ``scores`` and ``dealer`` at its start, times the table's scale (a hand thrown in: 0).
    Games not ``playing`` (spare rows, changed in place) are 0 and are not waited for."""
    value = np.zeros(env.num_envs)
    while True:
        obs, rewards, terminated, truncated, info = env.step(actions)
        ended = np.flatnonzero(playing & info["hand_over"])  # scored, or thrown in (all passed)
        if chances is None:
            value[ended] = rewards[ended, seat[ended]]
        elif len(ended):
            change = chances.hand_change(env, info, ended, (terminated | truncated)[ended], scores[ended], dealer[ended])
            value[ended] = np.where(seat[ended] % 2 == 0, change, -change)
        playing[ended] = False
        if not playing.any():
            return value
        actions = policy.act_batch(obs, info["action_mask"])


class TrueDeal:
    """A sampler (``DealSampler.deal``'s places) that always deals the hidden cards as they are in ``game``:
    what no agent knows, for the measures that may see it (``experiments/search_oracle.py``)."""

    def __init__(self, game: Game, view: SeatView) -> None:
        others = [s for s in range(4) if s != view.seat]
        other_bidder = view.phase == Phase.PLAY and game.bidder is not None and game.bidder != view.seat
        self.places = [
            *(list(game.holding[s]) for s in others),
            list(game.discards) if other_bidder else [],
            [c for c in game.kitty if c not in game.picked_up],
        ]

    def deal(self, rng: np.random.Generator) -> list[list[int]]:
        """The true places (the same every draw)."""
        return [list(p) for p in self.places]


class Rollouts:
    """Values of a decision's legal actions by ``deals`` rollouts each of ``policy`` (see
    the module docstring). Batched engines are kept between decisions, one per batch size."""

    def __init__(
        self, policy: NeuralAgent, deals: int, chances: Chances | None = None, infer: float = 0.0, draws: int = 4
    ) -> None:
        if deals < 1:
            raise ValueError(f"rollouts={deals}: at least 1 deal per action")
        if infer < 0 or draws < 1:
            raise ValueError(f"rollouts: infer={infer} must be 0 (off) or more and draws={draws} at least 1")
        self.policy, self.deals = policy, deals
        self.infer, self.draws = infer, draws if infer else 1
        # a table of win chances: the hand valued by the change it makes to the team's
        # chance of winning the game, times the table's scale, instead of by its margin
        self.chances = chances
        self._envs: dict[int, SmearVectorEnv] = {}

    def _env(self, games: int, rules: Rules) -> SmearVectorEnv:
        env = self._envs.get(games)
        if env is None or env.rules != rules:
            env = SmearVectorEnv(games, seed=0, reward="margin", copy=False, rules=rules)  # hands go on: no new game each
            env.reset()
            self._envs[games] = env
        return env

    def values(self, view: SeatView, sampler: DealSampler, legal: list[int], rng: np.random.Generator) -> dict[int, float]:
        """Each legal action's mean hand margin for ``view``'s team over ``self.deals`` deals from ``sampler``."""
        n, k = self.deals, len(legal)
        decks, histories = self.deals_for(view, sampler, rng)
        env = self._env(n * k, view.rules)
        obs, info = env.deal_hands(np.tile(decks, (k, 1)), view.dealer, view.scores)
        for actions in np.tile(histories, (k, 1)).T:
            obs, _, _, _, info = env.step(actions)
        actions = np.repeat(np.array(legal, dtype=np.int64), n)  # action j on deals j*n .. j*n + n - 1
        rows = n * k
        margin = play_out(env, actions, self.policy, np.full(rows, view.seat), np.tile(view.scores, (rows, 1)),
                          np.full(rows, view.dealer), self.chances, np.ones(rows, dtype=bool))  # fmt: skip
        return {a: float(margin[j * n : (j + 1) * n].mean()) for j, a in enumerate(legal)}

    def deals_for(self, view: SeatView, sampler: DealSampler, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``self.deals`` deals (decks, and the actions that lead to ``view`` on each) from
        ``sampler``; with ``infer``, kept from ``draws`` times as many by their likelihood."""
        drawn = [deal_of(view, sampler.deal(rng), rng) for _ in range(self.deals * self.draws)]
        decks = np.array([deck for deck, _ in drawn])
        # another bidder's discards differ from deal to deal
        histories = np.array([history for _, history in drawn], dtype=np.int64).reshape(len(drawn), -1)
        if not self.infer:
            return decks, histories
        log_likelihood = self.log_likelihood(view, decks, histories)
        weights = np.exp(log_likelihood - log_likelihood.max())
        cumulative = np.cumsum(weights / weights.sum())
        keep = np.searchsorted(cumulative, (rng.random() + np.arange(self.deals)) / self.deals)
        keep = np.minimum(keep, len(drawn) - 1)  # the last edge, by rounding
        return decks[keep], histories[keep]

    def log_likelihood(self, view: SeatView, decks: np.ndarray, histories: np.ndarray) -> np.ndarray:
        """For each deal, the log of the chance that the network, playing every other seat, makes
        the actions ``view``'s seat has seen (bids, trump, cards; softmax of its values over ``infer``)."""
        m = len(decks)
        env = self._env(m, view.rules)
        obs, info = env.deal_hands(decks, view.dealer, view.scores)
        total = np.zeros(m)
        for actions in histories.T:
            seen = (info["seat"] != view.seat) & ((actions < DISCARD_BASE) | (actions >= PLAY_BASE))
            if seen.any():
                q = self.policy.values(obs[seen]) / self.infer
                q = np.where(info["action_mask"][seen].astype(bool), q, -np.inf)
                top = q.max(axis=1)
                log_z = top + np.log(np.exp(q - top[:, None]).sum(axis=1))
                total[seen] += q[np.arange(len(q)), actions[seen]] - log_z
            obs, _, _, _, info = env.step(actions)
        return total
