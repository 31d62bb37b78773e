"""``search@BLUEPRINT``: a search that improves any agent, its blueprint, one decision at a
time (single-agent search as in SPARTA: Lerer, Hu, Foerster and Brown, AAAI 2020).

At each of its decisions with more than one legal action the searcher

1. asks the blueprint for its move, from the real observation (the blueprint follows the
   whole game, so its memory is the one it would have playing alone);
2. samples ``worlds`` worlds consistent with all it knows (``state.sample_world``: the
   cards it has not seen dealt at random into the places it cannot see); with
   ``belief="blueprint"``, drawn from more such worlds by how well each explains the
   others' moves this round under the blueprint, the round replayed from its deal in each
   (see ``_sample_worlds``);
3. in each world, plays every candidate action (the legal actions; a policy's
   ``max_candidates`` most likely) and then lets the blueprint play every seat, its own
   included, to the end of the round (the rollout): in every world each candidate meets
   the same world and the same random numbers (common random numbers), so their
   differences are paired;
4. scores a rollout by the searcher's points of the round relative to the mean of the
   others' (negated: fewer points is better; ``reward="points"``: its own points alone),
   plus, where the round ends the game, the win share above the fair one
   (``GAME_END_WEIGHT`` rounds' worth);
5. deviates from the blueprint's move only when the best candidate's mean gain over it
   clears the threshold: the gain, ``z`` standard errors below its mean, must exceed
   ``threshold`` points (with ``confirm=True`` it must clear it again on ``worlds`` fresh
   worlds, against the blueprint's move alone). Otherwise it plays the blueprint's move.

Candidates that fall clearly behind the blueprint's move (the gain ``z`` standard errors
above its mean still below zero) stop being rolled out after each batch of
``ELIMINATION_BATCH`` worlds (successive elimination).

The search assumes the other seats play the blueprint. A blueprint that is a plain MLP
policy (``ppo:pretrained``, a ``ppo:FILE`` of that shape) plays the rollouts of a batch in
lockstep, one batched forward pass per step for all of them; any other blueprint plays them
one by one, each rollout player reseeded from the world's seed.

With ``worlds=0``, or a threshold no gain clears (``math.inf``), it plays its
blueprint's moves exactly.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from cardenv.agents.base import AgentFactory
from cardenv.core.agent import Agent, RulesetInfo
from cardenv.core.chance import ExternalChance, SeededChance
from cardenv.engine.rounds import GameState

DEFAULT_WORLDS = 8
"""Worlds sampled per decision (each candidate action is rolled out once in each)."""
DEFAULT_THRESHOLD = 0.0
"""Points per round the gain's lower bound must clear to deviate from the blueprint."""
DEFAULT_Z = 2.0
"""Standard errors between a gain's mean and the bound the threshold is judged by."""
DEFAULT_MAX_CANDIDATES = 6
"""Most candidate actions a policy blueprint's search rolls out (its most likely ones,
its own move first); a blueprint that gives no probabilities has every legal action rolled out."""
DEFAULT_REWARD = "relative"
"""How the search scores a rollout (one of ``ROLLOUT_REWARDS``)."""
ELIMINATION_BATCH = 4
"""Worlds between two eliminations of candidates clearly behind the blueprint's move."""
SEARCH_STREAM = 1
"""The spawn key a reseeded search's own generator adds to the seed's."""
REWARD_SCALE = 40.0
"""Points a rollout's reward is divided by (a typical swing of one round between players)."""
GAME_END_WEIGHT = 2.0
"""Reward for winning a game the rollout's round ends, over the fair share."""


BELIEFS = ("uniform", "blueprint")
"""How the worlds are drawn: uniform over those consistent with the searcher's information,
or weighted by the likelihood of the others' actions this round under the blueprint."""
DEFAULT_BELIEF = "uniform"
BELIEF_SLIP = 0.1
"""For a blueprint that gives no probabilities (a heuristic), the probability the belief
gives to its playing another legal move than its own."""
BELIEF_PROPOSALS = 4
"""Uniform worlds drawn per world kept, when the worlds are weighted by the blueprint."""

ROLLOUT_REWARDS = ("relative", "points")
"""How a rollout's round is scored: the searcher's points relative to the others', or its own."""


def round_reward(world: GameState, round_index: int, seat: int, scoring: str = "relative") -> float:
    """``seat``'s reward for round ``round_index`` of ``world``, which has ended: minus its
    points added less the mean the others added (``scoring="points"``: minus its points
    added), over ``REWARD_SCALE``; where the round ended the game, plus
    ``GAME_END_WEIGHT`` × (its win share − the fair share)."""
    added = world.round_results[round_index].points_added
    n = len(added)
    others_mean = (sum(added) - added[seat]) / (n - 1) if scoring == "relative" else 0.0
    reward = -(added[seat] - others_mean) / REWARD_SCALE
    if world.is_terminal:
        winners = world.winners()
        share = 1.0 / len(winners) if seat in winners else 0.0
        reward += GAME_END_WEIGHT * (share - 1.0 / n)
    return reward


def tempered_weights(log_likelihoods: np.ndarray, effective: float) -> np.ndarray:
    """Normalised weights ∝ likelihood^β, with the largest β ≤ 1 whose effective sample
    size (Σw)²/Σw² is still at least ``effective`` (found by bisection): a blueprint rarely
    explains the others' moves exactly, and untempered weights would keep one world.
    Impossible worlds (-inf) get weight 0."""
    possible = np.isfinite(log_likelihoods)
    shifted = np.where(possible, log_likelihoods - log_likelihoods[possible].max(), 0.0)

    def weights_at(beta: float) -> np.ndarray:
        w = np.where(possible, np.exp(beta * shifted), 0.0)
        return w / w.sum()

    def size(w: np.ndarray) -> float:
        return 1.0 / float(np.square(w).sum())

    weights = weights_at(1.0)
    if size(weights) >= effective:
        return weights
    low, high = 0.0, 1.0
    for _ in range(20):
        beta = (low + high) / 2
        if size(weights_at(beta)) >= effective:
            low = beta
        else:
            high = beta
    return weights_at(low)


def _batched_actor(agent: Agent):
    """The numpy actor of a blueprint whose move is a pure function of one observation
    (a deterministic, unguided, frameless MLP policy), which rollouts can batch; else None."""
    actor = getattr(agent, "actor", None)
    stateless = (getattr(agent, "deterministic", False) and getattr(agent, "guide", True) is None
                 and getattr(agent, "frames", True) is None)
    return actor if actor is not None and stateless else None


class BlueprintSearchAgent(Agent):
    """See the module docstring."""

    name = "search"

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, blueprint: str, agent_factory: AgentFactory,
                 worlds: int = DEFAULT_WORLDS, threshold: float = DEFAULT_THRESHOLD, z: float = DEFAULT_Z,
                 max_candidates: int = DEFAULT_MAX_CANDIDATES, reward: str = DEFAULT_REWARD,
                 belief: str = DEFAULT_BELIEF, confirm: bool = False):
        """``blueprint`` is an agent spec, built by ``agent_factory``; ``threshold`` is in
        points per round; ``reward`` one of ``ROLLOUT_REWARDS``."""
        super().__init__(info, rng)
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 0:
            raise ValueError(f"the search's worlds per decision is an integer of at least 0, got {worlds!r}")
        if isinstance(max_candidates, bool) or not isinstance(max_candidates, int) or max_candidates < 2:
            raise ValueError(f"the search's max_candidates is an integer of at least 2, got {max_candidates!r}")
        if not (isinstance(threshold, (int, float)) and threshold >= 0) or not (isinstance(z, (int, float)) and z >= 0):
            raise ValueError(f"the search's threshold (points) and z are numbers of at least 0, got {threshold!r} "
                             f"and {z!r}")
        if reward not in ROLLOUT_REWARDS:
            raise ValueError(f"the search's reward must be one of {', '.join(ROLLOUT_REWARDS)}, got {reward!r}")
        if belief not in BELIEFS:
            raise ValueError(f"the search's belief must be one of {', '.join(BELIEFS)}, got {belief!r}")
        if not isinstance(confirm, bool):
            raise ValueError(f"the search's confirm is True or False, got {confirm!r}")
        self.reward, self.belief, self.confirm = reward, belief, confirm
        self.blueprint_spec = blueprint
        self.worlds, self.threshold, self.z, self.max_candidates = worlds, float(threshold), float(z), max_candidates
        # The blueprint of the real game; the rollouts' players have generators of their own,
        # reseeded from each world's seed.
        self.blueprint = agent_factory(blueprint, info, rng)
        # The search's own draws (worlds, rollout seeds) come from a generator apart from
        # the blueprint's, so a search that never deviates plays the blueprint's very moves.
        self.search_rng = rng.spawn(1)[0]
        self.players = [agent_factory(blueprint, info, np.random.default_rng(0)) for _ in range(info.num_players)]
        self.name = f"search@{self.blueprint.name}"
        self.needs_observation_vector = True
        self.needs_recent_events = self.blueprint.needs_recent_events
        self.memory = self.blueprint.memory
        config = info.config
        if self.memory is not None and self.memory != config.memory:
            config = dataclasses.replace(config, memory=self.memory)
        self.observer = info.observer_class(config)
        self._buffer = self.observer.new_buffer()
        self.actor = _batched_actor(self.players[0])
        self.agent_factory = agent_factory
        self._replay_pool: list[list[Agent]] = []  # blueprint players that replay the round in a world
        # Where the belief replays this round from (its deal, or the searcher's first sight of
        # it), the round's actions by then, and the live state it belongs to.
        self._anchor: tuple[GameState | None, int, GameState | None] = (None, 0, None)
        self.decisions = self.searched = self.deviations = 0  # counts, for the benchmarks
        self.weighted, self.effective_proposals = 0, 0.0  # weighted samplings, their summed effective sizes
        self.confirmations = 0  # deviations judged again on fresh worlds

    def reset(self) -> None:
        super().reset()
        self.blueprint.reset()
        self._anchor = (None, 0, None)

    def reseed(self, seed: np.random.SeedSequence | int) -> None:
        super().reseed(seed)  # the blueprint's generator (shared)
        sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        self.search_rng = np.random.default_rng(np.random.SeedSequence(sequence.entropy,
                                                                       spawn_key=(*sequence.spawn_key, SEARCH_STREAM)))

    def close(self) -> None:
        for agent in (self.blueprint, *self.players, *(a for agents in self._replay_pool for a in agents)):
            agent.close()

    def choose(self, observation, state: GameState | None, seat: int) -> int:
        mask = observation["action_mask"]
        self.decisions += 1
        if self.belief == "blueprint" and state is not None:
            self._keep_anchor(state)
        move = self.blueprint.act(observation, state, seat)
        probabilities = getattr(self.blueprint, "last_probabilities", None)
        legal = np.flatnonzero(mask)
        if len(legal) == 1 or self.worlds == 0 or self.threshold == math.inf:
            return move
        if state is None:
            raise ValueError("the search plays the rules engine forward: it needs the game state")
        if probabilities is not None:
            ranked = sorted(legal.tolist(), key=lambda a: (a != move, -probabilities[a], a))
            candidates = ranked[:self.max_candidates]
        else:
            candidates = [move] + [int(a) for a in legal if a != move]
        self.searched += 1
        best = self._best(self._gains(state, seat, candidates))
        if best is not None and self.confirm:
            # the best of several noisy gains is biased upward: judge it again on fresh worlds
            self.confirmations += 1
            best = self._best(self._gains(state, seat, [move, best]))
        if best is None:
            return move
        self.deviations += 1
        return best

    def _best(self, gains: dict[int, list[float]]) -> int | None:
        """The candidate of the largest mean gain among those whose gain, ``z`` standard
        errors below its mean, clears the threshold; None if none does."""
        best, bound = None, self.threshold / REWARD_SCALE
        for action, samples in gains.items():
            if len(samples) < 2:
                continue
            mean = float(np.mean(samples))
            lower = mean - self.z * float(np.std(samples, ddof=1)) / math.sqrt(len(samples))
            if lower > bound and (best is None or mean > best[1]):
                best = (action, mean)
        return None if best is None else int(best[0])

    # --- the rollouts ----------------------------------------------------------------------
    def _gains(self, state: GameState, seat: int, candidates: list[int]) -> dict[int, list[float]]:
        """Each other candidate's gain over the blueprint's move (``candidates[0]``), one per
        world it was rolled out in."""
        move, alive = candidates[0], candidates[1:]
        gains: dict[int, list[float]] = {a: [] for a in alive}
        round_index = state.round_index
        done = 0
        worlds = self._sample_worlds(state, seat, self.worlds)
        while done < self.worlds and alive:
            batch = min(ELIMINATION_BATCH, self.worlds - done)
            starts, seeds = [], []
            for world in worlds[done:done + batch]:
                seed = int(self.search_rng.integers(2**63))
                for action in (move, *alive):
                    start = world.clone()
                    start.apply(action)
                    starts.append(start)
                    seeds.append(seed)
            rewards = self._play_out(starts, seeds, round_index, seat)
            per_world = len(alive) + 1
            for w in range(batch):
                row = rewards[w * per_world:(w + 1) * per_world]
                for action, reward in zip(alive, row[1:]):
                    gains[action].append(reward - row[0])
            done += batch
            alive = [a for a in alive if self._upper(gains[a]) >= 0.0]
        return gains

    def _keep_anchor(self, state: GameState) -> None:
        """At the searcher's first decision of a round, where the belief replays the round's
        actions from: the state as the round was dealt, where the state kept it (the search
        asks it to from then on, see ``GameState.keep_round_starts``), else a copy of the
        state now."""
        anchor, _, of = self._anchor
        if anchor is None or of is not state or anchor.round_index != state.round_index:
            state.keep_round_starts()
            start = state.round_start
            if start is not None and start.round_index == state.round_index:
                self._anchor = (start, 0, state)
            else:
                self._anchor = (state.clone(), len(state.round_actions), state)

    def _sample_worlds(self, state: GameState, seat: int, count: int) -> list[GameState]:
        """``count`` worlds consistent with all ``seat`` knows in ``state``: uniform over
        them (``belief="uniform"``), or (``belief="blueprint"``) ``BELIEF_PROPOSALS`` ×
        ``count`` uniform ones resampled by the likelihood of the others' actions of this
        round under the blueprint (see :meth:`_log_likelihoods`, :func:`tempered_weights`)."""
        rng = self.search_rng
        anchor, done, _ = self._anchor
        if self.belief == "uniform" or anchor is None or len(state.round_actions) == done:
            return [state.sample_world(seat, rng) for _ in range(count)]
        proposals = [state.sample_world(seat, rng) for _ in range(BELIEF_PROPOSALS * count)]
        log_likelihoods = self._log_likelihoods(state, seat, proposals)
        if not np.isfinite(log_likelihoods).any():  # no proposal explains the round: keep them uniform
            return proposals[:count]
        weights = tempered_weights(log_likelihoods, count)
        self.effective_proposals += 1.0 / float(np.square(weights).sum())
        self.weighted += 1
        # systematic resampling: each proposal kept about weight × count times
        picks = np.searchsorted(np.cumsum(weights), (rng.random() + np.arange(count)) / count)
        worlds = []
        for k in np.minimum(picks, len(proposals) - 1).tolist():
            world = proposals[k]
            # a world kept twice gets a generator of its own (its own future draws)
            worlds.append(world if all(w is not world for w in worlds) else
                          world._copy_with(world.table.clone(),
                                           SeededChance(np.random.default_rng(rng.integers(2**63)))))
        return worlds

    def _log_likelihoods(self, state: GameState, seat: int, worlds: list[GameState]) -> np.ndarray:
        """Per world, the log-likelihood of the others' actions of this round since the
        anchor (the round's deal, or the searcher's first decision of it) under the blueprint:
        the round replayed from there with the world's cards in place of the real ones (its chance
        outcomes those of the real round, public once they happened); -inf
        where an action could not have been taken. A policy's probability of each action; a
        blueprint that gives none (a heuristic) is taken to play its own move with probability
        1 − ``BELIEF_SLIP``, any other legal one with the rest shared equally."""
        anchor, done, _ = self._anchor
        log_likelihoods = np.zeros(len(worlds))
        if isinstance(anchor.chance, ExternalChance):
            return log_likelihoods  # a round played on outside chance cannot be replayed
        replays = []
        for world in worlds:
            replay = anchor.clone()
            replay.table.card_types[:] = world.table.card_types
            replay.mark_changed()
            replays.append(replay)
        if self.actor is None:
            players = self._replay_players(len(replays))
        alive = list(range(len(replays)))
        for action in state.round_actions[done:]:
            player = replays[alive[0]].current_player if alive else None
            if player is None:
                break
            if player != seat:
                if self.actor is not None:
                    log_likelihoods[alive] += self._batched_log_probabilities(replays, alive, action)
                else:
                    for k in alive:
                        log_likelihoods[k] += self._log_probability(players[k][player], replays[k], player, action)
            still = []
            for k in alive:
                if np.isfinite(log_likelihoods[k]) and replays[k].is_legal(action):
                    replays[k].apply(action)
                    still.append(k)
                else:
                    log_likelihoods[k] = -np.inf
            alive = still
        return log_likelihoods

    def _batched_log_probabilities(self, replays: list[GameState], alive: list[int], action: int) -> np.ndarray:
        """The plain policy's log-probability of ``action`` in each live replay."""
        logits = self._masked_logits([replays[k] for k in alive]).astype(np.float64)
        top = logits.max(axis=1, keepdims=True)
        return logits[:, action] - (top[:, 0] + np.log(np.exp(logits - top).sum(axis=1)))

    def _log_probability(self, agent: Agent, replay: GameState, player: int, action: int) -> float:
        """The log-probability that ``agent`` (following the replay from the anchor) takes
        ``action`` for ``player`` now."""
        observation = self._observation(replay, player, agent)
        mask = observation["action_mask"]
        move = agent.act(observation, replay, player)
        if not mask[action]:
            return -math.inf
        probabilities = getattr(agent, "last_probabilities", None)
        if probabilities is not None:
            return math.log(probabilities[action]) if probabilities[action] > 0 else -math.inf
        legal = int(np.count_nonzero(mask))
        if legal == 1:
            return 0.0
        return math.log(1.0 - BELIEF_SLIP) if move == action else math.log(BELIEF_SLIP / (legal - 1))

    def _replay_players(self, count: int) -> list[list[Agent]]:
        """``count`` sets of blueprint players, one per seat, reset and reseeded (from the
        search's generator) to follow a replay each (their memory of the round starting
        where the replay does)."""
        while len(self._replay_pool) < count:
            self._replay_pool.append([self.agent_factory(self.blueprint_spec, self.info, np.random.default_rng(0))
                                      for _ in range(self.info.num_players)])
        seed = int(self.search_rng.integers(2**63))
        for k, agents in enumerate(self._replay_pool[:count]):
            for s, agent in enumerate(agents):
                agent.reseed(np.random.SeedSequence(seed, spawn_key=(k, s)))
                agent.reset()
        return self._replay_pool[:count]

    def _upper(self, samples: list[float]) -> float:
        if len(samples) < 2:
            return math.inf
        return float(np.mean(samples)) + self.z * float(np.std(samples, ddof=1)) / math.sqrt(len(samples))

    def _play_out(self, worlds: list[GameState], seeds: list[int], round_index: int, seat: int) -> list[float]:
        """Play every world to the end of round ``round_index`` with the blueprint in every
        seat; the searcher's reward in each."""
        if self.actor is not None:
            self._play_batched(worlds, round_index)
        else:
            for world, seed in zip(worlds, seeds):
                self._play_one(world, seed, round_index)
        return [round_reward(world, round_index, seat, self.reward) for world in worlds]

    def _play_one(self, world: GameState, seed: int, round_index: int) -> None:
        for k, agent in enumerate(self.players):
            agent.reseed(np.random.SeedSequence(seed, spawn_key=(k,)))
            agent.reset()
        while not world.is_terminal and world.round_index == round_index:
            player = world.current_player
            agent = self.players[player]
            world.apply(agent.act(self._observation(world, player, agent), world, player))

    def _observation(self, world: GameState, player: int, agent: Agent) -> dict[str, np.ndarray]:
        """What ``agent`` acts from as ``player`` in ``world`` (the blueprint's memory model)."""
        return {"observation": self.observer.write(world, player, self._buffer, recent_events=agent.needs_recent_events),
                "action_mask": world.legal_action_mask()}

    def _play_batched(self, worlds: list[GameState], round_index: int) -> None:
        """The rollouts in lockstep: one forward pass of the blueprint's actor per step for
        every world still in its round."""
        active = [w for w in worlds if not w.is_terminal and w.round_index == round_index]
        while active:
            for world, action in zip(active, self._masked_logits(active).argmax(axis=1).tolist()):
                world.apply(action)
            active = [w for w in active if not w.is_terminal and w.round_index == round_index]

    def _masked_logits(self, worlds: list[GameState]) -> np.ndarray:
        """The plain policy's logits for the player to move in each world, one batched
        forward pass; -inf where an action is illegal."""
        policy, buffer = self.players[0], self._buffer
        vectors = None
        masks = np.empty((len(worlds), len(self.info.action_table)), dtype=bool)
        for k, world in enumerate(worlds):
            player = world.current_player
            mask = world.legal_action_mask()
            # What the policy reads: the observation and any pieces it derives from it.
            vector = policy.policy_vector({"observation": self.observer.write(world, player, buffer),
                                           "action_mask": mask}, world, player)
            if vectors is None:
                vectors = np.empty((len(worlds), len(vector)), dtype=np.float32)
            vectors[k] = vector
            masks[k] = mask > 0
        return np.where(masks, self.actor.logits(vectors), -np.inf)
