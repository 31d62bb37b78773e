"""Tianshou and TorchRL, used as their docs show, play whole games of the rulesets where
players leave while the others play on (carte_v0, R-17; kaboom_v0 with elimination,
K-19), from the default ``env()``.

Each client drives the env with random legal actions (Tianshou's masked random MARL
algorithm under its Collector, as in its tic-tac-toe recipe; TorchRL's ``rollout``,
whose random actions follow the action mask). Every episode the client reports is
then replayed, move by move, on a plain PettingZoo loop over ``env()`` with the same
seed: it must end exactly where the game ends, and every agent's summed rewards must be
what the plain loop's ``last()`` pays it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from torchrl.envs import PettingZooWrapper

import cardenv
from cardenv.testing.aec import play_aec_game

pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")

GAMES = 20
# Small games (three players; a short carte round) in which random play often sees a
# player leave before the end. Nothing here chooses what happens to that player's agent.
OPTIONS = {
    "carte_v0": {"num_players": 3, "starting_score": 60, "max_turns_per_round": 20},
    "kaboom_v0": {"num_players": 3, "elimination": True},
}
# Of the GAMES each client plays, at least this many must see a player leave mid-game
# (a run that saw none would test nothing).
MIN_GAMES_WITH_A_PLAYER_OUT_MID_GAME = 5


def make_env(ruleset: str):
    return getattr(cardenv, ruleset).env(**OPTIONS[ruleset])


def check_client_games(ruleset: str, episodes) -> None:
    """``episodes`` yields (seed, moves, summed rewards per agent) for each game a client
    played; each must be a whole game, replayed move by move on a plain ``env()`` loop
    with the same seed, and pay every agent what that loop's ``last()`` pays it."""
    played = with_a_player_out = 0
    for seed, moves, client_rewards in episodes:
        game = play_aec_game(make_env(ruleset), seed, moves)
        assert client_rewards == pytest.approx(game.rewards, abs=1e-5), f"seed {seed}"
        played += 1
        with_a_player_out += game.left_mid_game
    assert played == GAMES
    assert with_a_player_out >= MIN_GAMES_WITH_A_PLAYER_OUT_MID_GAME


@pytest.mark.parametrize("ruleset", list(OPTIONS))
def test_tianshou_collector_plays_whole_games(ruleset):
    np.random.seed(0)  # Tianshou's random algorithm draws from numpy's global generator
    probe = PettingZooEnv(make_env(ruleset))
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=probe.action_space) for _ in probe.agents],
        env=probe)
    buffer = VectorReplayBuffer(2000, 1)
    collector = Collector(algorithm, DummyVectorEnv([lambda: PettingZooEnv(make_env(ruleset))]), buffer)

    def episodes():
        for seed in range(GAMES):
            collector.reset(reset_buffer=True, gym_reset_kwargs={"seed": seed})
            stats = collector.collect(n_episode=1)
            assert stats.n_collected_episodes == 1 and 0 < len(buffer) < buffer.maxsize
            steps = buffer[np.arange(len(buffer))]
            assert steps.done.tolist() == [False] * (len(buffer) - 1) + [True]
            moves = list(zip(steps.obs.agent_id.tolist(), steps.act.tolist()))
            rewards = steps.rew.sum(axis=0)  # one column per agent, in possible_agents order
            yield seed, moves, dict(zip(probe.agents, rewards.tolist()))

    check_client_games(ruleset, episodes())


@pytest.mark.parametrize("ruleset", list(OPTIONS))
def test_torchrl_rollout_plays_whole_games(ruleset):
    torch.manual_seed(0)  # rollout's random actions
    env = PettingZooWrapper(env=make_env(ruleset), use_mask=True, categorical_actions=True)
    max_steps = 5000

    def episodes():
        for seed in range(GAMES):
            rollout = env.rollout(max_steps, auto_reset=False, tensordict=env.reset(seed=seed))
            length = rollout.batch_size[0]
            assert length < max_steps
            assert rollout["next", "done"].flatten().tolist() == [False] * (length - 1) + [True]
            moves = []
            for t in range(length):
                acting = [group for group in env.group_map if rollout[group, "mask"][t, 0]]
                assert len(acting) == 1
                moves.append((acting[0], int(rollout[acting[0], "action"][t, 0])))
            rewards = {group: float(rollout["next", group, "reward"].sum()) for group in env.group_map}
            yield seed, moves, rewards

    check_client_games(ruleset, episodes())
