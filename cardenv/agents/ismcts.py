"""Information-set Monte Carlo tree search over the rules engine, guided by the heuristic.

Every simulation samples a determinization — ``state.sample_world(seat, rng)`` deals
the cards the searching player does not know into the places it cannot see — and walks
a tree of the searching player's own *information sets* for the rest of its turn:

* A node is what the searcher knows (its observation vector) at one of its decisions.
  Consecutive decisions of one turn (match select → select more / confirm, Jack own slot
  → target, draw → swap or discard → call or pass) are successive nodes, so a multi-step
  action is searched as a whole. A child is keyed by (action, observation after it):
  after a draw, each drawn card is its own node, so "swap into slot 2" is judged for the
  card actually drawn instead of averaged over every card the pile could give.
* Selection is PUCT with the ruleset heuristic as the prior: the heuristic's choice gets
  ``prior_weight`` (0.5 by default) of the prior mass, the other legal actions share the rest. With a
  small budget the search therefore plays the heuristic's move unless the simulations
  show another one doing better, instead of spreading two visits over fifteen actions.
  Another agent can be the prior (``prior="ppo:pretrained"``, spec
  ``ismcts:30@ppo:pretrained``): a policy's probabilities then get ``prior_weight`` of
  the mass (0.9 by default) and the uniform the rest, and its most likely action breaks
  ties.
* When the turn passes to another player (or the round ends), the heuristic finishes the
  round in every seat (the rollout); with a policy prior, the policy plays the
  searcher's seat there.

The reward is the searcher's round result relative to the others: minus (its points
added − the mean the others added) / 40. Calling END is judged by exactly this: a
successful call adds 0 while the others add their hands, a failed one adds double
(O-19), so the asymmetric risk is in the rollout's outcome, not in a hand-tuned margin.
When the round ends the game, what matters is the win, so a bonus for the win share
(minus the fair share) is added.

With ``leaf="static"`` (spec ``ismcts:N/static``) there is no rollout: the searcher's turn
is judged where it ends, by the hand totals of the sampled world (``hand_total``, the
engine's own count; every card is known there), with the same reward as a round that ended
at that point (a round with a call pending is still rolled out: the call's risk is in how
it ends); its nodes below the root have a uniform prior. A simulation is then a
determinization and the engine steps of one turn, well over ten times cheaper than a rollout of the round (``benchmarks/bench_search.py``);
it judges a turn by what it does to the hands, not by what the players will do next.

With ``leaf="value"`` (spec ``ismcts:N/value@ppo:...``, a policy prior) the turn is judged
where it ends by the policy's value function of the searcher's observation there (its
critic, in the reward units it was trained on, scaled like the other leaves). That
observation is all the searcher knows, so each distinct one is valued once per decision;
a round that ends in the turn, or has a call pending, is finished by the rollout's
players and scored as the policy was paid, plus the policy's value of the next round.

With ``leaf="next_value"`` (spec ``ismcts:N/next_value@ppo:...``) the rollout's players
first play the other seats' replies, and the value is read at the searcher's next
decision: where PPO's critic was trained (it only ever saw the learner's own decisions),
after the moves that decide what the turn was worth (who picks up a discard, who calls).
It costs the heuristic's replies in every simulation, and values fewer repeated
observations; see docs/agents.md for what it gains.

The most-visited root action is played. Budget: ``simulations`` per decision; forced
moves use none, and the search stops early once no other action can overtake the most
visited one in the simulations left. A decision whose simulations could not change the
move (the prior's choice would get every visit until that early stop, whatever the
rollouts return) is played without simulating.
"""

from __future__ import annotations

import math

import numpy as np

from cardenv.agents.base import AgentFactory
from cardenv.agents.blueprint_search import REWARD_SCALE, round_reward  # the rollout's reward, written once
from cardenv.core.agent import Agent, RulesetInfo
from cardenv.core.scoring import points_relative_to_table
from cardenv.engine.rounds import GameState
from cardenv.rulesets import get_ruleset

# The prior agent's share of the PUCT prior. A policy prior gets more: in one ruleset at 10
# simulations against 3 × heuristic (400 games), 0.9 won 0.339 and 0.5 won 0.273 (the
# policy alone 0.314); with 0.5 the search left the policy on too little evidence.
HEURISTIC_PRIOR_WEIGHT = 0.5
POLICY_PRIOR_WEIGHT = 0.9
# Smallest gap between two exploration terms that the (equal) means added to both cannot
# close in floating point; closer ones are not taken as settled (rewards are a few units).
FOREGONE_MARGIN = 1e-9
# How a simulation's leaf is judged: "rollout" finishes the round with the heuristic,
# "static" reads the sampled world's hand totals where the searcher's turn ends, "value"
# asks the policy prior's value function there, "next_value" at the searcher's next
# decision, after the others' replies.
LEAF_EVALUATIONS = ("rollout", "static", "value", "next_value")
VALUE_LEAVES = ("value", "next_value")  # leaves that read the policy prior's value function
# Rewards a policy's value function can be read in: per-round points (see _policy_round_reward).
VALUE_REWARD_MODES = ("points", "relative")


class _InfoSetNode:
    """One decision of the searching player, as it knows it; statistics per action."""

    __slots__ = ("visits", "value_sum", "prior", "default_prior", "total_visits", "total_value", "children")

    def __init__(self, legal: list[int], prior_action: int | None, prior_weight: float,
                 probabilities: np.ndarray | None = None):
        self.visits: dict[int, int] = {a: 0 for a in legal}
        self.value_sum: dict[int, float] = {a: 0.0 for a in legal}
        others = len(legal) - 1
        if probabilities is not None:
            self.default_prior = (1.0 - prior_weight) / len(legal)
            self.prior = {a: prior_weight * float(probabilities[a]) + self.default_prior for a in legal}
        elif prior_action is None or others == 0:
            self.default_prior = 1.0 / len(legal)
            self.prior = {a: self.default_prior for a in legal}
        else:
            self.default_prior = (1.0 - prior_weight) / others
            self.prior = {a: self.default_prior for a in legal}
            self.prior[prior_action] = prior_weight
        self.total_visits = 0
        self.total_value = 0.0
        self.children: dict[tuple[int, bytes], _InfoSetNode] = {}


def _make_heuristic(spec: str, info: RulesetInfo, rng: np.random.Generator) -> Agent:
    """The agent factory of a search whose builder gave none: its one prior is the heuristic."""
    return get_ruleset(info.name).heuristic(info, rng)


class ISMCTSAgent(Agent):
    name = "ismcts"
    default_simulations = 100

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, simulations: int = default_simulations,
                 exploration: float = 1.0, prior_weight: float | None = None, prior: str = "heuristic",
                 agent_factory: AgentFactory | None = None, leaf: str = "rollout"):
        """``prior`` is an agent spec; ``agent_factory`` builds it (the heuristic needs none);
        ``leaf`` is how a simulation ends (one of ``LEAF_EVALUATIONS``)."""
        super().__init__(info, rng)
        if leaf not in LEAF_EVALUATIONS:
            raise ValueError(f"the ismcts leaf evaluation must be one of {', '.join(LEAF_EVALUATIONS)}, got {leaf!r}")
        self.leaf = leaf
        if simulations < 1:
            raise ValueError("ismcts needs at least one simulation per move")
        if prior_weight is not None and not 0.0 < prior_weight < 1.0:
            raise ValueError(f"prior_weight is the prior agent's share of the prior: between 0 and 1 "
                             f"(exclusive), got {prior_weight!r}")
        self.simulations = simulations
        self.exploration = exploration
        if agent_factory is None:
            if prior != "heuristic":
                raise ValueError(f"the ismcts prior {prior!r} needs an agent_factory to build it "
                                 f"(cardenv.agents.make_agent builds every agent spec)")
            agent_factory = _make_heuristic
        self.prior_spec = prior
        self.observer = info.observer_class(info.config)
        self._buffer = self.observer.new_buffer()
        # The root prior sees the real observations of the whole game (its memory matters
        # under memory="none"); the node prior judges the searcher's later decisions of the
        # turn inside determinized worlds, from the searcher's own observation there.
        self.root_prior = agent_factory(prior, info, rng)
        self.node_prior = agent_factory(prior, info, rng)
        # A policy (ppo) gives probabilities; the heuristic only a move.
        self.policy_prior = hasattr(self.root_prior, "probabilities")
        if prior_weight is None:
            prior_weight = POLICY_PRIOR_WEIGHT if self.policy_prior else HEURISTIC_PRIOR_WEIGHT
        self.prior_weight = prior_weight
        heuristic = get_ruleset(info.name).heuristic
        self.rollout_agents = [heuristic(info, rng) for _ in range(info.num_players)]
        # A policy prior also plays the searcher's own seat in the rollouts: an action is then
        # judged by playing it and going on as the policy would (a policy-improvement step),
        # not as the heuristic would.
        self.rollout_self = agent_factory(prior, info, rng) if self.policy_prior else None
        if leaf in VALUE_LEAVES:
            self._check_value_prior()
            # Reward units of the policy's training env -> the search's (points / REWARD_SCALE).
            self._value_units = self.node_prior.reward_scale * REWARD_SCALE
            self._no_actions = np.zeros(len(info.action_table), dtype=np.int8)
        self._leaf_values: dict[bytes, float] = {}
        self._in_round: list[int] = []

    def _check_value_prior(self) -> None:
        if not hasattr(self.node_prior, "value"):
            raise ValueError(f"the ismcts leaf {self.leaf!r} reads a policy's value function: its prior must be a "
                             f"ppo policy (as in 'ismcts:100/{self.leaf}@ppo:pretrained'), got {self.prior_spec!r}")
        mode = self.node_prior.reward_mode
        if mode not in VALUE_REWARD_MODES:
            raise ValueError(f"the ismcts leaf {self.leaf!r} needs a policy trained with reward_mode "
                             f"{' or '.join(VALUE_REWARD_MODES)} (its value is in points), got {mode!r}")

    def reset(self) -> None:
        super().reset()
        self.root_prior.reset()

    def _ask_prior(self, agent: Agent, observation, state, seat: int) -> tuple[int, np.ndarray | None]:
        """The prior agent's move, and its action probabilities if it is a policy."""
        if not self.policy_prior:
            return agent.act(observation, state, seat), None
        probs = agent.probabilities(observation, state, seat)
        return int(np.argmax(probs)), probs

    def choose(self, observation, state: GameState | None, seat: int) -> int:
        # The root prior sees every decision, forced ones included, as it would playing alone.
        prior_action, probabilities = self._ask_prior(self.root_prior, observation, state, seat)
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return int(legal[0])
        if state is None:
            raise ValueError("the ismcts agent searches the rules engine: it needs the game state")
        root = _InfoSetNode(legal, prior_action, self.prior_weight, probabilities)
        # A leaf's value depends on the searcher's observation alone: kept for this decision.
        self._leaf_values.clear()
        self._in_round = state.seats_in_play()
        foregone = self._foregone_conclusion(root, legal)
        if foregone is not None:
            return foregone
        for done in range(self.simulations):
            self._simulate(root, state.sample_world(seat, self.rng), seat)
            if self._decided(root, self.simulations - done - 1):
                break
        return self._most_visited(root, prior_action)

    def _foregone_conclusion(self, root: _InfoSetNode, legal: list[int]) -> int | None:
        """The action the search returns whatever its rollouts say, when there is one; else None.

        While every visit is on one action, PUCT's choice between it and any other does not
        depend on the rollout values: the visited action's mean is the node's mean, which is
        also what an unvisited action is valued at (first-play urgency), so the means cancel
        and only priors and visit counts are compared. When that comparison keeps choosing
        one action until ``_decided`` would stop the search, the search plays that action,
        and its simulations can be skipped: the same move, without drawing the random
        numbers of the worlds and rollouts. It takes a confident prior over many legal
        actions and a small budget: at 10 simulations, up to 70% of a ruleset's decisions
        (where most are passes in match windows); at 30, hardly any.
        """
        # Simulations until the early stop, were every one of them on the same action.
        until_stop = next(n for n in range(1, self.simulations + 1)
                          if self._decided_by(n, 0, self.simulations - n))
        chosen = None
        for visits in range(until_stop):  # visits so far, all of them on `chosen`
            scale = self.exploration * math.sqrt(visits + 1)
            bonus = [scale * root.prior[a] / (1 + visits if a == chosen else 1) for a in legal]
            ranked = sorted(bonus, reverse=True)
            # A near-tie could go either way once the (cancelling) means are added in floating
            # point: then simulate.
            if ranked[0] - ranked[1] <= FOREGONE_MARGIN:
                return None
            best = legal[bonus.index(ranked[0])]
            if chosen is not None and best != chosen:
                return None
            chosen = best
        return chosen

    @staticmethod
    def _decided_by(leader: int, runner_up: int, remaining: int) -> bool:
        return leader - runner_up > remaining

    @classmethod
    def _decided(cls, root: _InfoSetNode, remaining: int) -> bool:
        """No other action can reach the leader's visit count in ``remaining`` simulations."""
        counts = sorted(root.visits.values(), reverse=True)
        return cls._decided_by(counts[0], counts[1], remaining)

    @staticmethod
    def _most_visited(root: _InfoSetNode, prior_action: int) -> int:
        def key(action: int):
            n = root.visits[action]
            mean = root.value_sum[action] / n if n else -math.inf
            return (n, mean, action == prior_action, -action)

        return int(max(root.visits, key=key))

    # --- one simulation ----------------------------------------------------------------------
    def _simulate(self, root: _InfoSetNode, world: GameState, seat: int) -> None:
        round_index = world.round_index
        node, path = root, []
        while True:
            action = self._select(node, world.legal_actions())
            path.append((node, action))
            world.apply(action)
            if world.is_terminal or world.round_index != round_index or world.current_player != seat:
                break
            # Still the searcher's decision in this turn: descend to its information set.
            key = (action, self.observer.write(world, seat, self._buffer).tobytes())
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = self._new_node(world, seat)
            node = child
        # A called round is judged by its end (O-19: a failed call adds double), which the
        # hands as they are do not show: it is rolled out, for the final turns only.
        if self.leaf in VALUE_LEAVES:
            reward = self._value_leaf(world, round_index, seat)
        elif (self.leaf == "static" and not world.is_terminal and world.round_index == round_index
                and getattr(world, "caller", None) is None):
            reward = self._static_value(world, seat)
        else:
            reward = self._rollout(world, round_index, seat)
        for visited, action in path:
            visited.visits[action] += 1
            visited.value_sum[action] += reward
            visited.total_visits += 1
            visited.total_value += reward

    def _new_node(self, world: GameState, seat: int) -> _InfoSetNode:
        legal = world.legal_actions()
        prior_action = probabilities = None
        # A static leaf judges the turn's later steps (which slot takes the drawn card) by
        # their effect on the hands directly, so its inner nodes skip the prior's cost.
        if len(legal) > 1 and self.leaf != "static":
            # The observation is the searcher's own: the same in every determinization of this
            # node. The prior starts afresh here (reset), as it has not followed this world.
            self.node_prior.reset()
            observation = {"observation": self._buffer, "action_mask": world.legal_action_mask()}
            prior_action, probabilities = self._ask_prior(self.node_prior, observation, world, seat)
        return _InfoSetNode(legal, prior_action, self.prior_weight, probabilities)

    def _select(self, node: _InfoSetNode, legal: list[int]) -> int:
        """PUCT: mean value + exploration × prior × √(visits of the node) / (1 + visits of the action).
        An unvisited action is valued at the node's mean so far (first-play urgency)."""
        if len(legal) == 1:
            return legal[0]
        parent_mean = node.total_value / node.total_visits if node.total_visits else 0.0
        scale = self.exploration * math.sqrt(node.total_visits + 1)
        best, best_score = legal[0], -math.inf
        for action in legal:
            n = node.visits.get(action)
            if n is None:  # not legal when the node was made (should not happen: masks are public)
                node.visits[action], node.value_sum[action] = 0, 0.0
                node.prior[action] = node.default_prior
                n = 0
            mean = node.value_sum[action] / n if n else parent_mean
            score = mean + scale * node.prior[action] / (1 + n)
            if score > best_score:
                best, best_score = action, score
        return best

    @staticmethod
    def _static_value(world: GameState, seat: int) -> float:
        """The searcher's reward were the round scored on the hands as they are now."""
        totals = [world.hand_total(player) for player in world.seats_in_play()]
        mine = world.hand_total(seat)
        others_mean = (sum(totals) - mine) / (len(totals) - 1)
        return -(mine - others_mean) / REWARD_SCALE

    def _value_leaf(self, world: GameState, round_index: int, seat: int) -> float:
        """The policy's value of where the searcher's turn ended (``next_value``: of its next
        decision, the others' replies played by the rollout's players); a round that ended
        first, or has a call pending (O-19's double for a failed call is in how it ends),
        is finished by the rollout's players and scored, and what follows it is the
        policy's value. In the policy's reward units, scaled like the other leaves."""
        agents = None
        if self.leaf == "next_value":
            agents = self._rollout_players(seat)
            self._play(world, round_index, agents, until_seat=seat)
        if not world.is_terminal and world.round_index == round_index and getattr(world, "caller", None) is None:
            return self._policy_value(world, seat)
        self._play(world, round_index, agents or self._rollout_players(seat))
        reward = self._policy_round_reward(world, round_index, seat)
        if not world.is_terminal and not world.eliminated[seat]:
            reward += self._policy_value(world, seat)
        return reward

    def _policy_value(self, world: GameState, seat: int) -> float:
        """The value prior's estimate from the searcher's observation in ``world`` (which
        depends only on what the searcher knows: computed once per decision for each)."""
        vector = self.observer.write(world, seat, self._buffer)
        key = vector.tobytes()
        value = self._leaf_values.get(key)
        if value is None:
            mask = world.legal_action_mask() if world.current_player == seat else self._no_actions
            self.node_prior.reset()  # no frames of this world's past decisions
            value = self.node_prior.value({"observation": vector, "action_mask": mask}, world, seat) / self._value_units
            self._leaf_values[key] = value
        return value

    def _policy_round_reward(self, world: GameState, round_index: int, seat: int) -> float:
        """The searcher's reward for a round that has ended, as the value prior was paid
        (per-round points: its own, or relative to the round's players), scaled like the
        other leaves."""
        added = world.round_results[round_index].points_added
        if self.node_prior.reward_mode == "relative":
            return points_relative_to_table(added, self._in_round)[seat] / REWARD_SCALE
        return -added[seat] / REWARD_SCALE

    def _rollout(self, world: GameState, round_index: int, seat: int) -> float:
        """Finish the round with the heuristic in every seat (a policy prior in the searcher's);
        the searcher's reward."""
        self._play(world, round_index, self._rollout_players(seat))
        return round_reward(world, round_index, seat)

    def _rollout_players(self, seat: int) -> list[Agent]:
        """The rollout's player of every seat, starting afresh in this world: the heuristic
        (a policy prior in the searcher's seat)."""
        for agent in self.rollout_agents:
            agent.start_round()
        if self.rollout_self is None:
            return self.rollout_agents
        self.rollout_self.reset()
        return [self.rollout_self if player == seat else agent for player, agent in enumerate(self.rollout_agents)]

    def _play(self, world: GameState, round_index: int, agents: list[Agent], until_seat: int | None = None) -> None:
        """Play the round on with ``agents`` to its end, or (``until_seat``) until that seat
        is to decide or a call is pending."""
        while not world.is_terminal and world.round_index == round_index:
            if until_seat is not None and (world.current_player == until_seat
                                           or getattr(world, "caller", None) is not None):
                return
            player = world.current_player
            observation = {"observation": self.observer.write(world, player, self._buffer,
                                                              recent_events=agents[player].needs_recent_events),
                           "action_mask": world.legal_action_mask()}
            world.apply(agents[player].choose(observation, world, player))
