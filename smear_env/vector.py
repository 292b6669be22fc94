"""The batched engine: B independent Smear games advanced in lockstep with numpy array operations.

Cards in hand are 32-bit masks (bit ``c`` is card ``c``, a suit is 8 adjacent bits). The
common path of a step (one action per game, the next observation and legal actions)
runs in compiled loops (``smear_env.vector_kernels``, numba); the end of a hand
(scoring, records, new deals) in numpy array operations over the games concerned.
Game ``i`` of episode ``e`` in a run seeded ``S`` is dealt exactly as the single-game
engine deals ``Game(rules, game_rng(S, i, e))``, and ``tests/test_vector_parity.py``
plays the same games through both engines, asserting identical observations, masks,
seats, rewards, episode ends and hand records at every step.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import vector_kernels as K  # noqa: N812 - the kernels and their state layout, read as K.PHASE, K.deal(...)
from .actions import NUM_ACTIONS
from .game import Game, IllegalActionError, Phase, game_label, game_rng, hand_record, run_entropy, split_deck
from .observer import OBS_DIM, STATE_DIM
from .records import write_records
from .render import render_table
from .rules import REWARDS, Rules, check_episode_settings, rules_of

BIT = (np.uint64(1) << np.arange(32, dtype=np.uint64)).astype(np.uint32)
DEAL_CHUNK = 16  # deals drawn per game at a time (the same stream as one draw per hand)
CATEGORIES = ("high", "low", "jack", "game")
STATE_CARD_DIM = 7 * 32  # hands by seat, kitty rest, pick-up, discards


def _unpack(words: np.ndarray) -> np.ndarray:
    """[n, w] uint32 words -> [n, 32 w] uint8 bits, bit j of word k at column 32 k + j."""
    return np.unpackbits(np.ascontiguousarray(words, dtype="<u4").view(np.uint8), axis=1, bitorder="little")


class SmearVectorEnv(VectorEnv):
    """``num_envs`` games of Smear in lockstep: a ``gymnasium.vector.VectorEnv``.

    ``obs, info = venv.reset(seed=S)``; ``obs, rewards, terminated, truncated, info =
    venv.step(actions)``. ``obs`` is ``[B, OBS_DIM]`` float32, the observation of the seat
    to act in each game (the ``smear_v0`` encoding; ``single_observation_space``);
    actions are ``[B]`` ids of the 72-action table (``single_action_space``).
    ``info["action_mask"]`` (``[B, 72]`` int8), ``info["seat"]`` (``[B]``) and
    ``info["hand_over"]`` (``[B]``, a hand was scored or thrown in) are always present.
    ``rewards`` is ``[B, 4]``, by seat, team-shared: four players act in turn, so a game's
    reward is not one number (wrappers that assume it is, such as ``RecordEpisodeStatistics``,
    do not apply; ``info["final_return"]`` has each finished game's return by seat).

    Finished games reset in the same step (``metadata["autoreset_mode"]`` is
    ``AutoresetMode.SAME_STEP``): ``info["_final"]`` (and ``info["_final_obs"]``) mark them,
    ``info["final_obs"]`` (an object array, None elsewhere) holds each one's last observation (the seat that made the last move,
    the finished hand on the table, an all-zero phase) and ``info["final_*"]`` its episode
    return, length, hands, scores, winner, points by category and bids. ``render(game=i)``
    draws game ``i`` (``render_mode="ansi"``).

    ``copy=False`` returns the same observation and mask arrays every step, overwritten in
    place (Gymnasium's ``copy`` option): faster for large ``num_envs``; copy what you keep.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi"]}

    def __init__(
        self,
        num_envs: int,
        seed: int | None = None,
        episode: str = "game",
        reward: str = "game",
        record: str | list[int] | None = None,
        copy: bool = True,
        render_mode: str | None = None,
        rules: Rules | None = None,
        **rule_settings: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}: must be a positive int")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r}: None or 'ansi'")
        self.render_mode = render_mode
        check_episode_settings(episode, reward)
        self.rules = rules_of(rules, rule_settings)
        self.num_envs = n = int(num_envs)
        self.episode_mode = episode
        self.reward_mode = reward
        if record is None:
            self._recorded = np.zeros(n, dtype=bool)
        elif record == "all":
            self._recorded = np.ones(n, dtype=bool)
        else:
            chosen = np.asarray(record)
            if chosen.ndim != 1 or chosen.dtype.kind not in "iu" or (chosen.size and (chosen.min() < 0 or chosen.max() >= n)):
                raise ValueError(f"record={record!r}: use None, 'all' or a list of game indices 0..{n - 1}")
            self._recorded = np.zeros(n, dtype=bool)
            self._recorded[chosen] = True
        self.records: list[dict[str, Any]] = []
        self.observation_shape = (OBS_DIM,)
        self.state_shape = (STATE_DIM,)
        self.num_actions = NUM_ACTIONS
        self.single_observation_space = spaces.Box(-1.0, 1.0, (OBS_DIM,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._seed = seed
        if not isinstance(copy, bool):
            raise ValueError(f"copy={copy!r}: True (new arrays each step) or False (one reused buffer)")
        self.copy = copy
        self._buffers: tuple[np.ndarray, np.ndarray] | None = None
        self._ready = False

    # ------------------------------------------------------------------ setup
    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game afresh; game i of this run is then (seed, i, 0), (seed, i, 1), ..."""
        n = self.num_envs
        if seed is None:
            seed = self._seed
        self.entropy = run_entropy(seed)
        self.episode = np.zeros(n, dtype=np.int64)
        self._rngs: list[np.random.Generator] = [np.random.default_rng(0)] * n  # each slot's game's, set by _new_games
        # Each game's state is two rows (smear_env.vector_kernels): int8 and 32-bit card masks, small
        # enough that a step over thousands of games reads it from cache. The attributes below are
        # named views of those rows, for numpy code and for readers.
        self._deal_buf = np.zeros((n, DEAL_CHUNK, 32), dtype=np.int8)
        self._deal_pos = np.zeros(n, dtype=np.int64)
        self.g = g = np.zeros((n, K.G_WIDTH), dtype=np.int8)
        self.m = m = np.zeros((n, K.M_WIDTH), dtype=np.uint32)
        self.scores = np.zeros((n, 2), dtype=np.int64)
        self.hand_index = np.zeros(n, dtype=np.int64)
        self.phase, self.to_act, self.dealer, self.leader = g[:, K.PHASE], g[:, K.TO_ACT], g[:, K.DEALER], g[:, K.LEADER]
        self.high_bid, self.bidder, self.trump = g[:, K.HIGH_BID], g[:, K.BIDDER], g[:, K.TRUMP]
        self.num_discards, self.num_tricks, self.num_in_trick = g[:, K.NUM_DISCARDS], g[:, K.NUM_TRICKS], g[:, K.IN_TRICK]
        self.bids = g[:, K.BIDS : K.BIDS + 4]
        self.discard_order = g[:, K.DISCARD_ORDER : K.DISCARD_ORDER + 3]
        self.trick_leader = g[:, K.TRICK_LEADER : K.TRICK_LEADER + 6]
        self.trick_winner = g[:, K.TRICK_WINNER : K.TRICK_WINNER + 6]
        self.trick_cards = g[:, K.TRICK_CARDS : K.TRICK_CARDS + 24].reshape(n, 6, 4)
        self.deck = g[:, K.DECK : K.DECK + 32]
        self.hold, self.voids = m[:, K.HOLD : K.HOLD + 4], m[:, K.VOIDS : K.VOIDS + 4]
        self.picked, self.discard_bits = m[:, K.PICKED], m[:, K.DISCARDED]
        self.ep_return = np.zeros((n, 4), dtype=np.float64)
        self.ep_length = np.zeros(n, dtype=np.int64)
        self.ep_points = np.zeros((n, 2, 4), dtype=np.int64)
        self.ep_bids = np.zeros((n, 2, 3), dtype=np.int64)
        self.ep_made = np.zeros((n, 2, 3), dtype=np.int64)
        self._legal = np.zeros((n, 3), dtype=np.uint32)  # the legal actions as bit words (kernels.legal)
        self._ready = True
        self._new_games(np.arange(n))
        obs, self._mask = self._observe()
        self._seat = self.to_act.astype(np.int64)  # who acts next: the seat whose final observation a game that ends gives
        return obs, {"action_mask": self._mask, "seat": self._seat, "hand_over": np.zeros(n, dtype=bool)}

    def _new_games(self, games: np.ndarray) -> None:
        """Begin a fresh game in each slot of ``games`` (R3: dealer drawn from the game's seed)."""
        for i in games.tolist():
            rng = game_rng(self.entropy, i, int(self.episode[i]))
            self._rngs[i] = rng
            self.dealer[i] = int(rng.integers(4))
            self._deal_pos[i] = DEAL_CHUNK
        self.scores[games] = 0
        self.hand_index[games] = 0
        self.ep_return[games] = 0
        self.ep_length[games] = 0
        self.ep_points[games] = 0
        self.ep_bids[games] = 0
        self.ep_made[games] = 0
        self._deal(games)

    def _deal(self, games: np.ndarray) -> None:
        """R4: deal the next hand in each of ``games``."""
        empty = games[self._deal_pos[games] == DEAL_CHUNK]
        if empty.size:
            # Each game's next DEAL_CHUNK decks from its own stream, sorted in one call.
            draws = np.stack([self._rngs[i].random((DEAL_CHUNK, 32)) for i in empty.tolist()])
            self._deal_buf[empty] = np.argsort(draws, axis=2, kind="stable")
            self._deal_pos[empty] = 0
        K.deal(games, self._deal_buf, self._deal_pos, self.g, self.m)

    def deal_hands(
        self, decks: np.ndarray, dealer: int | np.ndarray, scores: tuple[int, int] | np.ndarray = (0, 0)
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new hand in every game from chosen cards: ``decks`` is ``[B, 32]``, each row a
        permutation of the 32 cards in the layout of a deal (six cards a seat in seat order, then the
        kitty in its order, R4); ``dealer`` and ``scores`` (team 0, team 1) the same for all games or
        one per game. Returns ``obs, info`` as :meth:`reset`. For searches that play positions out
        from sampled deals (``agents.rollouts``): step the hand's actions so far, then play on. The
        hand counts as the episode's first (R16's guard counts from it), and the games' later hands
        are dealt from their own streams as usual."""
        if not self._ready:
            raise RuntimeError("call reset() before deal_hands()")
        n = self.num_envs
        decks = np.asarray(decks)
        if decks.shape != (n, 32) or decks.dtype.kind not in "iu" or not (np.sort(decks, axis=1) == np.arange(32)).all():
            raise ValueError(f"decks must be {n} rows, each the 32 cards 0-31 in some order, got {decks.dtype} {decks.shape}")
        dealers = np.broadcast_to(np.asarray(dealer, dtype=np.int64), (n,))
        if dealers.min() < 0 or dealers.max() > 3:
            raise ValueError(f"dealer must be a seat 0-3, got {dealer!r}")
        self.scores[:] = np.broadcast_to(np.asarray(scores, dtype=np.int64), (n, 2))
        self.dealer[:] = dealers
        self.hand_index[:] = 0  # searches deal thousands of hands into one batch: none may meet R16's guard
        K.deal(np.arange(n), decks.astype(np.int8)[:, None, :], np.zeros(n, dtype=np.int64), self.g, self.m)
        obs, self._mask = self._observe()
        self._seat = self.to_act.astype(np.int64)
        return obs, {"action_mask": self._mask, "seat": self._seat, "hand_over": np.zeros(n, dtype=bool)}

    def copy_positions(self, source: SmearVectorEnv, games: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
        """Set game ``j`` of this batch to game ``games[j]`` of ``source`` as it stands: every card where it
        is, the hand so far, the scores, the game's tallies. Returns ``obs, info`` as :meth:`reset`. For
        measures and teachers that may see every card (``train.teacher.OracleTeacher``): each copy then
        plays on as the original would, from the true position; the copies' later hands are dealt from
        their own streams."""
        if not self._ready or not source._ready:
            raise RuntimeError("call reset() on both batches before copy_positions()")
        if source.rules != self.rules:
            raise ValueError(f"copy_positions: the batches play other rules ({source.rules} and {self.rules})")
        games = np.asarray(games)
        n = self.num_envs
        if games.shape != (n,) or games.dtype.kind not in "iu" or games.min() < 0 or games.max() >= source.num_envs:
            raise ValueError(f"games must be {n} game numbers 0-{source.num_envs - 1}, got {games.dtype} {games.shape}")
        self.g[:] = source.g[games]
        self.m[:] = source.m[games]
        for name in ("scores", "hand_index", "ep_return", "ep_length", "ep_points", "ep_bids", "ep_made"):
            getattr(self, name)[:] = getattr(source, name)[games]
        obs, self._mask = self._observe()
        self._seat = self.to_act.astype(np.int64)
        return obs, {"action_mask": self._mask, "seat": self._seat, "hand_over": np.zeros(n, dtype=bool)}

    # ------------------------------------------------------------------ step
    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action per game for the seat to act; raises before changing anything if any is illegal."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        n = self.num_envs
        if a.shape != (n,) or a.dtype.kind not in "iu":
            raise ValueError(f"actions must be an integer array of shape ({n},), got {a.dtype} {a.shape}")
        a = a.astype(np.int64, copy=False)
        illegal = K.illegal(a, self._legal)
        if illegal.any():
            bad = np.flatnonzero(illegal)
            detail = "; ".join(
                f"game {g}: action {a[g]} by seat {self.to_act[g]} in phase {Phase(self.phase[g]).name}, "
                f"legal {np.flatnonzero(self._mask[g]).tolist()}"
                for g in bad[:5].tolist()
            )
            more = f" (and {bad.size - 5} more)" if bad.size > 5 else ""
            raise IllegalActionError(f"illegal actions in {bad.size} game(s): {detail}{more}")

        self._rewards = np.zeros((n, 4), dtype=np.float32)
        self._terminated = np.zeros(n, dtype=bool)
        self._truncated = np.zeros(n, dtype=bool)
        self._hand_over = np.zeros(n, dtype=bool)
        self._final: dict[str, Any] = {}
        self.ep_length += 1
        scored = np.zeros(n, dtype=bool)
        redeal = np.zeros(n, dtype=bool)
        K.advance(a, self.g, self.m, self.rules.kitty_size, scored, redeal)
        if redeal.any():
            self._finish_hands(np.flatnonzero(redeal), scored=False)
        if scored.any():
            self._finish_hands(np.flatnonzero(scored), scored=True)
        self.ep_return += self._rewards
        obs, self._mask = self._observe()
        self._seat = self.to_act.astype(np.int64)
        info: dict[str, Any] = {"action_mask": self._mask, "seat": self._seat, "hand_over": self._hand_over}
        info.update(self._final)
        return obs, self._rewards, self._terminated, self._truncated, info

    def _finish_hands(self, h: np.ndarray, scored: bool) -> None:
        """Score (R13-R15) or throw in (R7) the hands of games ``h``, then end or deal on."""
        rules = self.rules
        m = h.size
        self._hand_over[h] = True
        score_before = self.scores[h].copy()
        winner = np.full(m, -1, dtype=np.int64)
        if scored:
            points = np.empty((m, 4), dtype=np.int64)
            game_count = np.empty((m, 2), dtype=np.int64)
            hand_points = np.empty((m, 2), dtype=np.int64)
            made = np.empty(m, dtype=np.bool_)
            cap = -1 if rules.defender_cap is None else rules.defender_cap
            K.score_hands(
                h, self.g, self.m, self.scores, cap, rules.target_score, rules.win_only_on_made_bid, rules.high_low_in_play,
                REWARDS.index(self.reward_mode), self._rewards, self.ep_points, self.ep_bids, self.ep_made, winner, points,
                game_count, hand_points, made, score_before,
            )  # fmt: skip
        recorded = self._recorded[h]
        if recorded.any():
            for j in np.flatnonzero(recorded).tolist():
                extra = {}
                if scored:
                    extra = dict(
                        points={c: (None if v < 0 else int(v)) for c, v in zip(CATEGORIES, points[j].tolist(), strict=True)},
                        game_count=game_count[j].tolist(),
                        hand_points=hand_points[j].tolist(),
                        made_bid=bool(made[j]),
                    )
                self.records.append(self._record(int(h[j]), scored, score_before[j].tolist(), int(winner[j]), extra))
        self.hand_index[h] += 1
        over = winner >= 0
        truncated = ~over & (self.hand_index[h] >= rules.max_hands)  # R16
        ended = over | truncated
        if scored and self.episode_mode == "hand":
            ended = np.ones(m, dtype=bool)
        self._terminated[h[ended & ~truncated]] = True
        self._truncated[h[truncated]] = True
        going = h[~ended]
        if scored:
            self.dealer[going] = (self.dealer[going] + 1) % 4  # R3
        if going.size:
            self._deal(going)
        done = h[ended]
        if done.size:
            self._end_episodes(done, winner[ended])

    def _end_episodes(self, done: np.ndarray, winner: np.ndarray) -> None:
        n = self.num_envs
        final = self._final
        if not final:
            final.update(
                _final=np.zeros(n, dtype=bool),
                final_return=np.zeros((n, 4), dtype=np.float64),
                final_length=np.zeros(n, dtype=np.int64),
                final_hands=np.zeros(n, dtype=np.int64),
                final_scores=np.zeros((n, 2), dtype=np.int64),
                final_winner=np.full(n, -1, dtype=np.int64),
                final_points=np.zeros((n, 2, 4), dtype=np.int64),
                final_bids=np.zeros((n, 2, 3), dtype=np.int64),
                final_made=np.zeros((n, 2, 3), dtype=np.int64),
                final_obs=np.full(n, None, dtype=object),  # as Gymnasium's vector envs: None where no game ended
            )
            final["_final_obs"] = final["_final"]
        final["_final"][done] = True
        final["final_return"][done] = self.ep_return[done] + self._rewards[done]
        final["final_length"][done] = self.ep_length[done]
        final["final_hands"][done] = self.hand_index[done]
        final["final_scores"][done] = self.scores[done]
        final["final_winner"][done] = winner
        final["final_points"][done] = self.ep_points[done]
        final["final_bids"][done] = self.ep_bids[done]
        final["final_made"][done] = self.ep_made[done]
        self.phase[done] = Phase.GAME_OVER  # the finished table, as the single-game engine leaves it
        final["final_obs"][done] = list(self._encode(self._seat[done], games=done))  # _seat: who acted this step
        self.episode[done] += 1
        self._new_games(done)
        self.ep_return[done] = -self._rewards[done]  # step() adds this step's rewards: the new game starts at 0

    def _record(self, i: int, scored: bool, score_before: list[int], winner: int, extra: dict[str, Any]) -> dict[str, Any]:
        hands, kitty = split_deck(self.deck[i].tolist())
        dealer = int(self.dealer[i])
        bids = [((dealer + 1 + j) % 4, int(self.bids[i, (dealer + 1 + j) % 4])) for j in range(4)]
        tricks = [
            (
                int(self.trick_leader[i, t]),
                [((int(self.trick_leader[i, t]) + j) % 4, int(self.trick_cards[i, t, j])) for j in range(4)],
                int(self.trick_winner[i, t]),
            )
            for t in range(6)
        ]
        return hand_record(
            game_id=game_label(self.entropy, i, int(self.episode[i])),
            hand_index=int(self.hand_index[i]),
            rules=self.rules,
            dealer=dealer,
            dealt=hands,
            kitty=kitty,
            bids=[b for b in bids if b[1] >= 0],
            bidder=int(self.bidder[i]) if scored else None,
            bid=int(self.high_bid[i]),
            trump=int(self.trump[i]),
            discards=self.discard_order[i, : self.num_discards[i]].tolist(),
            tricks=tricks if scored else [],
            points=extra.get("points"),
            game_count=extra.get("game_count"),
            hand_points=extra.get("hand_points"),
            made_bid=extra.get("made_bid"),
            score_before=score_before,
            score_after=self.scores[i].tolist(),
            winner=None if winner < 0 else winner,
        )

    # ------------------------------------------------------------------ observation
    def _encode(self, me: np.ndarray, obs: np.ndarray | None = None, games: np.ndarray | None = None) -> np.ndarray:
        """The observation of seat ``me[j]`` in game ``games[j]`` (all games by default)."""
        rules = self.rules
        if obs is None:
            obs = np.empty((self.num_envs if games is None else games.size, OBS_DIM), dtype=np.float32)
        settings = (self.scores, rules.kitty_size, float(rules.target_score), rules.high_low_in_play)
        if games is None:
            K.encode(obs, me, self.g, self.m, *settings)
        else:
            K.encode_games(obs, games, me, self.g, self.m, *settings)
        return obs

    def _observe(self) -> tuple[np.ndarray, np.ndarray]:
        n = self.num_envs
        if self.copy:
            obs, mask = np.empty((n, OBS_DIM), dtype=np.float32), np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        else:  # the same two arrays every step: no fresh pages to fault in
            if self._buffers is None:
                self._buffers = np.empty((n, OBS_DIM), dtype=np.float32), np.zeros((n, NUM_ACTIONS), dtype=np.int8)
            obs, mask = self._buffers
            mask.fill(0)
        K.legal(mask, self._legal, self.g, self.m, self.rules.stick_the_dealer)
        return self._encode(self.to_act, obs), mask

    def observe(self, seats: np.ndarray) -> np.ndarray:
        """The observation of the given seat in each game, [B, OBS_DIM] (any seat, not only the one to act)."""
        seats = np.asarray(seats, dtype=np.int64)
        if seats.shape != (self.num_envs,) or seats.min() < 0 or seats.max() > 3:
            raise ValueError(f"seats must be {self.num_envs} seat numbers 0-3")
        return self._encode(seats)

    @property
    def action_mask(self) -> np.ndarray:
        """The legal-action mask of the seat to act in each game, [B, 72] int8."""
        return self._mask

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for each game."""
        out = np.empty(self.num_envs, dtype=np.int64)
        K.sample(self._legal, rng.random(self.num_envs), out)
        return out

    def state(self) -> np.ndarray:
        """The full-information vector of each game, [B, STATE_DIM] (layout of ``smear_env.observer.state``)."""
        n = self.num_envs
        k = self.rules.kitty_size
        kitty_all = np.bitwise_or.reduce(BIT[self.deck[:, 24:]], axis=1)
        kitty_rest = np.bitwise_or.reduce(BIT[self.deck[:, 24 + k :]], axis=1) if k < 8 else np.zeros(n, np.uint32)
        words = np.empty((n, 7), dtype=np.uint32)
        words[:, :4] = self.hold
        words[:, 4] = np.where(self.phase == Phase.BID, kitty_all, kitty_rest)
        words[:, 5] = np.where(self.phase == Phase.BID, 0, self.picked)
        words[:, 6] = self.discard_bits
        out = np.empty((n, STATE_DIM), dtype=np.float32)
        out[:, :STATE_CARD_DIM] = _unpack(words)
        out[:, STATE_CARD_DIM:] = self._encode(np.zeros(n, dtype=np.int64))
        return out

    def game(self, i: int) -> Game:
        """A single-engine snapshot of game ``i`` (to read a seat view or search from; playing it on leaves the batch alone)."""
        if not 0 <= i < self.num_envs:
            raise IndexError(f"game {i}: there are {self.num_envs} games (0..{self.num_envs - 1})")
        phase = int(self.phase[i])
        dealer = int(self.dealer[i])
        hands, kitty = split_deck(self.deck[i].tolist())
        order = [(dealer + 1 + j) % 4 for j in range(4)]
        nt = int(self.num_tricks[i])
        tricks = [
            (
                int(self.trick_leader[i, t]),
                [((int(self.trick_leader[i, t]) + j) % 4, int(self.trick_cards[i, t, j])) for j in range(4)],
                int(self.trick_winner[i, t]),
            )
            for t in range(nt)
        ]
        lead = int(self.leader[i])
        trick = [((lead + j) % 4, int(self.trick_cards[i, nt, j])) for j in range(int(self.num_in_trick[i]))] if nt < 6 else []
        return Game.from_state(
            self.rules,
            phase=Phase(phase),
            to_act=int(self.to_act[i]),
            dealer=dealer,
            dealt=hands,
            holding=[[c for c in range(32) if int(self.hold[i, s]) >> c & 1] for s in range(4)],
            kitty=kitty,
            bids=[(s, int(self.bids[i, s])) for s in order if self.bids[i, s] >= 0],
            trump=None if self.trump[i] < 0 else int(self.trump[i]),
            picked_up=kitty[: self.rules.kitty_size] if phase != Phase.BID else [],
            discards=self.discard_order[i, : self.num_discards[i]].tolist(),
            tricks=tricks,
            trick=trick,
            leader=None if lead < 0 else lead,
            voids=[[bool(int(self.voids[i, s]) >> u & 1) for u in range(4)] for s in range(4)],
            scores=self.scores[i].tolist(),
            hand_index=int(self.hand_index[i]),
            game_id=game_label(self.entropy, i, int(self.episode[i])),
            rng=np.random.default_rng(self._rngs[i].integers(2**63)),
        )

    def render(self, game: int = 0) -> str | None:  # type: ignore[override]  # one chosen game, not all of them
        """The table of game ``game`` as text (every hand shown), with ``render_mode="ansi"``."""
        if self.render_mode is None:
            return None
        return render_table(self.game(game))

    def write_records(self, path: str | os.PathLike[str]) -> int:
        """Write the hand records of the recorded games (``record=``) atomically."""
        return write_records(self.records, path)

    def memory_bytes(self) -> int:
        """Bytes held in the batch's arrays (for per-game memory figures)."""
        return sum(v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray))


def play_random_games_vector(rules: Rules, games: int, seed: int) -> list[dict[str, Any]]:
    """The same as :func:`smear_env.records.play_random_games` on the batched engine: one slot per game, run until each has ended once."""
    venv = SmearVectorEnv(games, seed=seed, record="all", rules=rules)
    venv.reset()
    rng = np.random.default_rng([seed, 1])
    finished = np.zeros(games, dtype=bool)
    while not finished.all():
        _, _, terminated, truncated, _ = venv.step(venv.sample_actions(rng))
        finished |= terminated | truncated
    first = [r for r in venv.records if r["game_id"].endswith("-0")]  # each slot's first game only
    return sorted(first, key=lambda r: int(r["game_id"].split("-")[1]))  # grouped by game, hands in order
