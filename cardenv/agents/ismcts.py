"""Information-set Monte Carlo tree search (single-observer ISMCTS) over the rules engine.

Every simulation samples a determinization — ``state.sample_world(seat, rng)`` deals
the cards the searching player does not know into the places it cannot see — then walks
one shared tree keyed by action sequences (selection by UCB with availability counts,
since the legal actions differ between determinizations), adds one node, and finishes
the round with the ruleset's heuristic playing every seat. Each seat's reward is its
round result relative to the others: minus (its points added − the mean the others
added) / 40, so a simulation ends at the round's end rather than the game's.

The searching player's own legal actions are the same in every determinization (masks
leak nothing), so the root's children are exactly its legal actions. The most-visited
one is played. Budget: ``simulations`` per decision; forced moves use none.
"""

from __future__ import annotations

import math

import numpy as np

from cardenv.agents.base import Agent, RulesetInfo
from cardenv.agents.registry import heuristic_class
from cardenv.games.base import CardGameState

REWARD_SCALE = 40.0


class _Node:
    __slots__ = ("player", "children", "visits", "total", "available")

    def __init__(self, player: int):
        self.player = player  # who chose the action leading here
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.available = 0


class ISMCTSAgent(Agent):
    name = "ismcts"
    default_simulations = 100

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, simulations: int = default_simulations,
                 exploration: float = 0.7):
        super().__init__(info, rng)
        if simulations < 1:
            raise ValueError("ismcts needs at least one simulation per move")
        self.simulations = simulations
        self.exploration = exploration
        self.observer = info.observer_class(info.config)
        self._buffer = self.observer.new_buffer()
        rollout_class = heuristic_class(info.name)
        self.rollout_agents = [rollout_class(info, rng) for _ in range(info.num_players)]

    def choose(self, observation, state: CardGameState | None, seat: int) -> int:
        mask = observation["action_mask"]
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        if state is None:
            raise ValueError("the ismcts agent searches the rules engine: it needs the game state")
        root = _Node(seat)
        for _ in range(self.simulations):
            self._simulate(root, state.sample_world(seat, self.rng))
        best = max((a for a in legal if a in root.children), key=lambda a: (root.children[a].visits, -a))
        return int(best)

    def _simulate(self, root: _Node, world: CardGameState) -> None:
        round_index = world.round_index
        node, path = root, []
        while not world.is_terminal and world.round_index == round_index:
            legal = world.legal_actions()
            player = world.current_player
            for action in legal:
                child = node.children.get(action)
                if child is not None:
                    child.available += 1
            untried = [a for a in legal if a not in node.children]
            if untried:
                action = untried[int(self.rng.integers(len(untried)))]
                child = node.children[action] = _Node(player)
                child.available = 1
                world.apply(action)
                path.append(child)
                break
            log_term = self.exploration
            action = max(legal, key=lambda a: (
                node.children[a].total / node.children[a].visits
                + log_term * math.sqrt(math.log(node.children[a].available) / node.children[a].visits)))
            node = node.children[action]
            world.apply(action)
            path.append(node)
        rewards = self._rollout(world, round_index)
        for child in path:
            child.visits += 1
            child.total += rewards[child.player]

    def _rollout(self, world: CardGameState, round_index: int) -> np.ndarray:
        """Finish the round with the heuristic in every seat; each seat's relative result."""
        for agent in self.rollout_agents:
            agent.start_round()
        while not world.is_terminal and world.round_index == round_index:
            seat = world.current_player
            observation = {"observation": self.observer.observe(world, seat, self._buffer),
                           "action_mask": world.legal_action_mask()}
            world.apply(self.rollout_agents[seat].choose(observation, world, seat))
        added = np.asarray(world.round_results[round_index].points_added, dtype=np.float64)
        n = len(added)
        others_mean = (added.sum() - added) / (n - 1)
        return -(added - others_mean) / REWARD_SCALE
