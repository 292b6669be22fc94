"""``search``: determinized search on top of the learned models: the network where double-dummy misleads,
PIMC over deals drawn from a learned model of the hidden cards for the card play, the two blended.

Spec: ``search[:preset=NAME,KEY=VALUE,...]``: a named setting (:data:`PRESETS`; ``pimc`` by default), any of
its options changed by the keys given. The options, by the part of the search they set:

* the contracts (bids, trump, discards): ``net`` (the network: a shipped name or a path), ``rollouts``;
* the card play: ``samples``, ``seconds``, ``beliefs`` (a path, or ``uniform``), ``play_rollouts``, ``mix``,
  ``blend``, ``net_tricks``;
* the rollouts: ``chances`` (a table, or ``win_chances``: the shipped one), ``infer``, ``draws``;
* where it runs: ``device``.

========  =========================================================================
preset    options
========  =========================================================================
pimc      samples=20, seconds=0.09, net=dmc, blend=0.5 (the others off)
rollouts  net=distilled, rollouts=64, play_rollouts=64, mix=1
chance    net=chance, rollouts=64, play_rollouts=64, mix=1, chances=win_chances
========  =========================================================================

What each preset wins is measured in docs/results.md ("Search"), not here.

* **Bidding, trump, discards**: the network (by default ``dmc``, the first release's DMC Q-network,
  the network the presets were first measured with) decides. Solving a deal with open cards
  values a contract as if the bidder could see every hand; it bids and declares far too boldly
  (PIMC's weak spot), while the network learnt from results. With ``rollouts=R`` (default 0:
  off) each legal trump and discard is valued instead by ``R`` deals from the model of the
  hidden cards, on each of which the network plays the hand out at every seat from that seat's
  own observation (``agents.rollouts``): the network's own imperfect-information play, not
  open cards. That value is blended with the network's as in the card play. The bids stay the
  network's: against many-deal rollouts its bids lose next to nothing, and the rollouts' own noise
  costs more than that (the figure: docs/research, 2026-12-01, "Search over learned models").
* **Card play**: for each decision, ``samples`` deals are drawn from the model of the hidden
  cards (``smear_nets`` kind ``beliefs``: for each unseen card, where it lies given everything the
  seat saw, the bids included), still exactly consistent with the view
  (``smear_env.DealSampler`` with weights); each is solved exactly by the double-dummy solver.
  A card's search value is its mean over the deals (the hand's score change, the acting team's
  minus the other's). With ``play_rollouts=P`` (default 0: off) each card is also valued by
  ``P`` deals on which the network plays the hand out at every seat (``agents.rollouts``, as
  for the trumps and discards); the search value is then ``(1 - mix)`` times the double-dummy
  value plus ``mix`` times the rollouts' (``mix`` default 0.5; at 1 no deal is solved). The
  rollouts measure what a card is worth against players who cannot see the cards; double-dummy
  values assume they can. With ``chances=FILE`` (a table of win chances, ``python -m
  train.chance_table``; ``win_chances``: the shipped table of the ``chance`` network's play) the rollouts value a hand by the change it makes to the team's chance of
  winning the game (times the table's scale) instead of by its margin. With ``infer=T`` (default
  0: off) the rollouts' deals are drawn ``draws`` (default 4) times over and kept by how likely the
  other seats' bids, trump and cards are under the network's play on each (``agents.rollouts``:
  inference from the play).
* **The blend**: the card played maximises ``(search value + blend * Q) / (1 + blend)`` where
  ``Q`` is the network's value of the card, in the same unit (DMC's target is the hand's score
  margin); ``scores`` gives these values for every legal action (``train.distill`` teaches them).
  The network knows what the open-card search cannot (that the opponents do not see the
  cards either); the search knows what the network cannot compute (this deal's exact
  endings). In the first ``net_tricks`` tricks the network plays alone.

The research pages (docs/research) list the ablations (which part earns what) with the commands that measured them.
"""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import torch

from smear_env import DealSampler, Phase, SeatView
from smear_nets import load_checkpoint, resolve_device
from smear_nets.shipped import BELIEFS

from .chances import Chances
from .neural import NeuralAgent
from .pimc import PIMCAgent
from .registry import check_options
from .rollouts import Rollouts

PRESETS: dict[str, dict[str, object]] = {
    "pimc": dict(
        samples=20,
        seconds=0.09,
        net="dmc",
        beliefs=BELIEFS,
        blend=0.5,
        net_tricks=0,
        rollouts=0,
        play_rollouts=0,
        mix=0.5,
        chances=None,
        infer=0.0,
        draws=4,
        device="cpu",
    ),  # fmt: skip
}
PRESETS["rollouts"] = PRESETS["pimc"] | dict(net="distilled", rollouts=64, play_rollouts=64, mix=1.0)
PRESETS["chance"] = PRESETS["rollouts"] | dict(net="chance", chances="win_chances")
"""The named settings of the table in the module docstring: each option's value."""
ROLLED = (Phase.TRUMP, Phase.DISCARD)  # the contract decisions ``rollouts`` values (the bids stay the network's)


class SearchAgent(PIMCAgent):
    """The agent the module docstring describes."""

    name = "search"
    independent = True

    def __init__(self, preset: str = "pimc", **options: object) -> None:
        if preset not in PRESETS:
            raise ValueError(f"search: preset={preset!r}: one of {', '.join(PRESETS)}")
        unknown = sorted(set(options) - set(PRESETS[preset]))
        if unknown:
            raise ValueError(f"search: unknown option(s) {unknown}; allowed are preset, {', '.join(PRESETS[preset])}")
        self.options = PRESETS[preset] | options
        self._setup(**self.options)  # type: ignore[arg-type]

    def _setup(
        self,
        samples: int,
        seconds: float,
        net: str | Path,
        beliefs: str | Path,
        blend: float,
        net_tricks: int,
        rollouts: int,
        play_rollouts: int,
        mix: float,
        chances: str | Path | None,
        infer: float,
        draws: int,
        device: str,
    ) -> None:
        super().__init__(samples, seconds)
        check_options(
            "search", blend=blend, mix=mix, infer=infer, net_tricks=net_tricks, rollouts=rollouts,
            play_rollouts=play_rollouts, draws=draws,
        )  # fmt: skip
        self.network = NeuralAgent(net, device)
        table = Chances.load(chances) if chances else None
        if table is not None and not (rollouts or play_rollouts):
            raise ValueError(f"search: chances={chances} values the rollouts' hands: give rollouts=R or play_rollouts=P too")
        if infer and not (rollouts or play_rollouts):
            raise ValueError(f"search: infer={infer} weighs the rollouts' deals: give rollouts=R or play_rollouts=P too")
        self.rollouts = Rollouts(self.network, rollouts, table, infer, draws) if rollouts else None
        self.play_rollouts = Rollouts(self.network, play_rollouts, table, infer, draws) if play_rollouts and mix > 0 else None
        self.mix = mix if self.play_rollouts is not None else 0.0
        self.device = resolve_device(device)
        self.beliefs = None if str(beliefs) == "uniform" else load_checkpoint(beliefs, self.device).build(self.device)
        self.blend, self.net_tricks = blend, net_tricks

    def check_rules(self, rules) -> None:
        """Raise ValueError if its network cannot play under ``rules`` (see :meth:`agents.neural.NeuralAgent.check_rules`)."""
        self.network.check_rules(rules)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> int:
        """The legal action of best :meth:`scores` (the network's choice where they tie)."""
        legal = list(view.legal_actions) or np.flatnonzero(action_mask).tolist()
        if len(legal) == 1:
            return legal[0]
        if not self._searches(view):
            return self.network.act(observation, action_mask, view)
        score, q = self._judge(observation, view, legal)
        best = max(score.values())
        return max((a for a in legal if score[a] >= best - 1e-9), key=lambda a: q[a])  # ties: the network's choice

    def scores(self, observation: np.ndarray, action_mask: np.ndarray, view: SeatView) -> dict[int, float]:
        """Each legal action's value as this agent judges it, in the network's unit (the hand's score
        margin): ``(search value + blend * Q) / (1 + blend)`` where it searches (the card play; trump
        and discards with ``rollouts``), the network's ``Q`` where the network decides. ``act`` plays
        the best of them; ``train.distill`` teaches them."""
        legal = list(view.legal_actions) or np.flatnonzero(action_mask).tolist()
        if len(legal) > 1 and self._searches(view):
            return self._judge(observation, view, legal)[0]
        q = self.network.values(observation[None])[0]
        return {a: float(q[a]) for a in legal}

    def _searches(self, view: SeatView) -> bool:
        if view.phase == Phase.PLAY:
            return len(view.tricks) >= self.net_tricks
        return self.rollouts is not None and view.phase in ROLLED

    def _judge(self, observation: np.ndarray, view: SeatView, legal: list[int]) -> tuple[dict[int, float], np.ndarray]:
        """The blended score of each legal action (a card by PIMC, a contract by rollouts), and the network's values."""
        q = self.network.values(observation[None])[0]
        collecting = gc.isenabled()
        gc.disable()  # as PIMC: a full collection would eat the time budget
        try:
            if view.phase == Phase.PLAY:
                value = dict.fromkeys(legal, 0.0)
                if self.mix < 1:
                    totals = self._deal_values(observation, view, legal)
                    deals = max(1, self._last_deals)
                    value = {a: (1 - self.mix) * totals[a] / deals for a in legal}
                if self.play_rollouts is not None:
                    rolled = self.play_rollouts.values(view, self._sampler(view, observation), legal, self.rng)
                    value = {a: value[a] + self.mix * rolled[a] for a in legal}
            else:
                assert self.rollouts is not None
                value = self.rollouts.values(view, self._sampler(view, observation), legal, self.rng)
        finally:
            if collecting:
                gc.enable()
        score = {a: (value[a] + self.blend * float(q[a])) / (1 + self.blend) for a in legal}
        return score, q

    def _deal_values(self, observation: np.ndarray, view: SeatView, legal: list[int]) -> dict[int, float]:
        before = self.deals_solved
        totals = super()._deal_values(observation, view, legal)
        self._last_deals = self.deals_solved - before
        return totals

    def _sampler(self, view: SeatView, observation: np.ndarray) -> DealSampler:
        """Deals from the learned model of the hidden cards (uniform with ``beliefs=uniform``)."""
        if self.beliefs is None:
            return DealSampler(view)
        with torch.no_grad():
            logits = self.beliefs(torch.as_tensor(observation[None], dtype=torch.float32, device=self.device))
        return DealSampler(view, weights=torch.softmax(logits[0], dim=-1).cpu().numpy().astype(np.float64))
