"""Whole games on PettingZoo's plain AEC loop, the reference that the tests of other
clients (Tianshou, TorchRL, RLlib) and of the env's own modes compare with: the same
seed and moves must give every agent the same summed rewards."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pettingzoo import AECEnv

Move = tuple[str, int]  # (agent, action)


@dataclass
class AECGame:
    moves: list[Move]
    rewards: dict[str, float]  # each agent's summed rewards, as ``last()`` paid them
    # ``env.rewards`` after each move (what clients that read every seat's rewards sum)
    step_rewards: list[dict[str, float]]
    left_mid_game: bool  # a seat left the game while it went on
    # Times the selected agent was one whose seat had left while the game went on
    # (PettingZoo's dead step of ``eliminated_agents="remove"``).
    selected_after_leaving: int


def play_aec_game(env: AECEnv, seed: int, moves: list[Move] | None = None,
                  rng: np.random.Generator | None = None) -> AECGame:
    """Play a whole game from ``env.reset(seed=seed)``: done agents step with None; the
    agent to act plays the next of ``moves`` or, without them, a random legal action
    drawn from ``rng``. Replayed moves must be exactly the game: each names the agent to
    act, and the game ends right after the last one (an AssertionError says where not)."""
    if (moves is None) == (rng is None):
        raise ValueError("play_aec_game takes moves to replay or an rng to draw random ones: exactly one of them")
    env.reset(seed=seed)
    raw = env.unwrapped
    game = raw.game
    pending = None if moves is None else iter(moves)
    played: list[Move] = []
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    step_rewards = []
    left_mid_game, selected_after_leaving = False, 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        rewards[agent] += reward
        if not game.is_terminal and game.eliminated[raw.seat_of(agent)]:
            selected_after_leaving += 1
        if terminated or truncated:
            env.step(None)
            continue
        if pending is None:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        else:
            move = next(pending, None)
            assert move is not None, f"seed {seed}: the moves end after {len(played)}, before the game does"
            assert move[0] == agent, f"seed {seed}: move {len(played)} is {move[0]}'s, but {agent} is to act"
            action = move[1]
        played.append((agent, action))
        env.step(action)
        step_rewards.append(dict(env.rewards))
        left_mid_game |= True in game.eliminated and not game.is_terminal
    assert game.is_terminal
    if pending is not None:
        assert next(pending, None) is None, f"seed {seed}: the moves go on after the game's end ({len(played)})"
    return AECGame(played, rewards, step_rewards, left_mid_game, selected_after_leaving)
