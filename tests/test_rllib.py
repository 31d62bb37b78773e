"""RLlib multi-agent PPO on a cardenv ruleset: a short masked self-play run on a local
Ray cluster produces a checkpoint that `cardenv eval` loads and plays legally."""

from __future__ import annotations

import json

import numpy as np
import pytest

import cardenv
from cardenv.cli import main
from cardenv.testing.aec import play_aec_game

# Ray is imported inside the tests: a run without the rllib extra collects this module and
# deselects it (pyproject's addopts); CI runs it in the venv that has Ray (pytest -m ray).
pytestmark = pytest.mark.ray

ENV_KWARGS = {"num_players": 3, "single_round": True, "max_turns_per_round": 60}


@pytest.fixture(scope="module")
def local_cluster():
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def short_run(policies: str, out) -> str:
    from cardenv.adapters.rllib import ppo_config, write_metadata

    config = (ppo_config("onefifty_v0", ENV_KWARGS, policies=policies, seed=0, hidden=(32,))
              .env_runners(num_env_runners=0)
              .learners(num_learners=0)
              .training(train_batch_size_per_learner=200, minibatch_size=50, num_epochs=1))
    algo = config.build_algo()
    try:
        result = None
        for _ in range(2):
            result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 400
        checkpoint = algo.save_to_path(str(out / "checkpoint"))
    finally:
        algo.stop()
    write_metadata(checkpoint, "onefifty_v0", ENV_KWARGS)
    return checkpoint


def test_shared_policy_self_play_checkpoint_plays_in_cardenv_eval(local_cluster, tmp_path, capsys):
    checkpoint = short_run("shared", tmp_path)
    # The env options come from the checkpoint; Agent.act asserts every action is legal.
    assert main(["eval", "onefifty_v0", "--agent", f"rllib:{checkpoint}", "--games", "6", "--no-progress",
                 "--json", "-"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 6 and result["env_kwargs"] == ENV_KWARGS


def test_one_policy_per_seat(local_cluster, tmp_path, capsys):
    from cardenv.adapters.rllib import ppo_config

    config = ppo_config("onefifty_v0", ENV_KWARGS, policies="per_seat")
    assert sorted(config.policies) == ["player_0", "player_1", "player_2"]
    assert config.policy_mapping_fn("player_2", None) == "player_2"
    checkpoint = short_run("per_seat", tmp_path)
    assert main(["eval", "onefifty_v0", "--agent", f"rllib:{checkpoint}", "--games", "3", "--no-progress"]) == 2
    assert "name one, as in" in capsys.readouterr().err
    assert main(["eval", "onefifty_v0", "--agent", f"rllib:{checkpoint}#player_1", "--games", "3",
                 "--no-progress"]) == 0
    with pytest.raises(ValueError, match="policies must be one of shared, per_seat"):
        ppo_config("onefifty_v0", policies="league")


@pytest.mark.parametrize("eliminated_agents", ["stay", "remove"])
@pytest.mark.parametrize("ruleset, options", [
    ("carte_v0", {"num_players": 3, "starting_score": 60, "max_turns_per_round": 20}),
    ("kaboom_v0", {"num_players": 3, "elimination": True}),
])
def test_rllib_env_plays_whole_games_in_which_players_leave(ruleset, options, eliminated_agents):
    """R-17, K-19: RLlib's PettingZoo wrapper ends each episode at the game's end, and
    pays every agent what a plain ``env()`` loop pays it, whatever becomes of the agents
    of players who leave."""
    from cardenv.adapters.rllib import make_env

    options = {**options, "eliminated_agents": eliminated_agents}
    env = make_env(ruleset, options)
    rng = np.random.default_rng(0)
    games_with_a_player_out = 0
    for seed in range(10):
        observations, _ = env.reset(seed=seed)
        moves, rewards = [], dict.fromkeys(env.possible_agents, 0.0)
        while True:
            acting = [a for a in observations if observations[a]["action_mask"].any()]
            assert len(acting) == 1
            agent = acting[0]
            action = int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
            moves.append((agent, action))
            observations, step_rewards, terminated, truncated, _ = env.step({agent: action})
            for a, reward in step_rewards.items():
                rewards[a] += reward
            if terminated["__all__"] or truncated["__all__"]:
                break
        game = play_aec_game(getattr(cardenv, ruleset).env(**options), seed, moves)
        assert rewards == pytest.approx(game.rewards, abs=1e-9)
        games_with_a_player_out += game.left_mid_game
    assert games_with_a_player_out >= 3
