"""Warm starts (cardenv.train.warm_start): recorded decisions, behaviour cloning, the
critic warm-up and the KL pull toward the clone; and `cardenv train --warm-start`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardenv.agents import make_agent, ruleset_info
from cardenv.train.config import TrainConfig
from cardenv.train.regularised_ppo import kl_to_teacher, regularised_ppo_class
from cardenv.train.single_seat import SingleSeatEnv
from cardenv.train.warm_start import actor_parameters, clone_into, collect_demonstrations

SHORT = {"single_round": True, "max_turns_per_round": 40}


def _model(ruleset="onefifty_v0", env_kwargs=SHORT, **kwargs):
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: SingleSeatEnv(ruleset, "random_no_call", env_kwargs)])
    values = dict(n_steps=256, batch_size=128, n_epochs=2, policy_kwargs={"net_arch": [64, 64]}, device="cpu", seed=0)
    values.update(kwargs)
    return regularised_ppo_class()("MlpPolicy", venv, **values)


def _state(module) -> dict:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def test_recorded_decisions_are_the_teachers_legal_choices_and_repeat_by_seed():
    first = collect_demonstrations("cut_v0", "heuristic", 600, seed=3, env_kwargs=SHORT)
    again = collect_demonstrations("cut_v0", "heuristic", 600, seed=3, env_kwargs=SHORT)
    assert len(first) == 600 and first.games >= 1
    assert np.array_equal(first.observations, again.observations) and np.array_equal(first.actions, again.actions)
    assert first.masks[np.arange(600), first.actions].all()  # every label is legal where it was recorded
    info = ruleset_info("cut_v0", **SHORT)
    assert first.observations.shape == (600, info.layout.size) and first.masks.shape == (600, len(info.action_table))


def test_without_exploration_the_labels_replay_the_recorded_games():
    """explore=0: the table plays exactly the labels, so replaying them from the same
    deals reproduces every recorded observation (nothing else chose the moves)."""
    from cardenv.envs.info import make_raw_env

    demos = collect_demonstrations("onefifty_v0", "heuristic", 300, seed=5, env_kwargs=SHORT, explore=0.0)
    env = make_raw_env("onefifty_v0", **SHORT)
    rng = np.random.default_rng(5)
    for _ in range(ruleset_info("onefifty_v0", **SHORT).num_players):  # the teachers' seeds come first
        rng.integers(2**63)
    env.reset(seed=int(rng.integers(2**31)))
    for i in range(len(demos)):
        if env.game.is_terminal:
            env.reset(seed=int(rng.integers(2**31)))
        observation = env.observe(env.agent_selection)
        assert np.array_equal(observation["observation"].astype(np.float16), demos.observations[i]), i
        env.step(int(demos.actions[i]))
        env.step_done_agents()


def test_cloning_raises_agreement_and_leaves_the_critic_alone():
    model = _model()
    demos = collect_demonstrations("onefifty_v0", "heuristic", 4000, seed=0, env_kwargs=SHORT)
    critic = _state(model.policy.mlp_extractor.value_net) | {"v." + k: v for k, v in _state(model.policy.value_net).items()}
    before = clone_into(model.policy, demos, epochs=1, learning_rate=0.0)
    after = clone_into(model.policy, demos, epochs=4)
    assert after["held_out_agreement"] > before["held_out_agreement"] + 0.2, (before, after)
    assert after["held_out_agreement"] > 0.6
    unchanged = _state(model.policy.mlp_extractor.value_net) | {
        "v." + k: v for k, v in _state(model.policy.value_net).items()}
    assert all(np.array_equal(critic[k], unchanged[k]) for k in critic)


def test_the_critic_warmup_trains_the_value_network_only():
    model = _model()
    model.keep_close_to_clone(0.0, critic_warmup_steps=10_000)
    actor = [p.detach().clone() for p in actor_parameters(model.policy)]
    critic = [p.detach().clone() for p in model.policy.value_net.parameters()]
    model.learn(512)
    assert all(np.array_equal(a, p.detach()) for a, p in zip(actor, actor_parameters(model.policy)))
    assert not all(np.array_equal(c, p.detach()) for c, p in zip(critic, model.policy.value_net.parameters()))
    model.keep_close_to_clone(0.0, critic_warmup_steps=0)
    model.learn(512)
    assert not all(np.array_equal(a, p.detach()) for a, p in zip(actor, actor_parameters(model.policy)))


def test_the_kl_to_the_clone_starts_at_zero_and_holds_the_policy_near_it():
    import copy

    import torch

    def drift(kl_coef: float) -> float:
        model = _model(learning_rate=3e-3)
        reference = copy.deepcopy(model.policy)
        model.keep_close_to_clone(kl_coef, critic_warmup_steps=0)
        env = model.get_env()
        observations = torch.as_tensor(env.reset(), dtype=torch.float32)
        masks = torch.as_tensor(np.stack(env.env_method("action_masks")))
        with torch.no_grad():
            assert float(kl_to_teacher(reference, model.policy, observations, masks)) == pytest.approx(0.0, abs=1e-6)
        model.learn(2048)
        if kl_coef:
            assert "train/kl_to_warm_start" in model.logger.name_to_value
        states = torch.as_tensor(collect_demonstrations("onefifty_v0", "heuristic", 500, env_kwargs=SHORT)
                                 .observations.astype(np.float32))
        all_legal = torch.ones((len(states), model.action_space.n), dtype=torch.bool)
        with torch.no_grad():
            return float(kl_to_teacher(reference, model.policy, states, all_legal))

    assert drift(20.0) < drift(0.0) / 2
    # The clone is not saved with the model: a saved model loads as a plain MaskablePPO.
    assert "teacher" in regularised_ppo_class()._excluded_save_params(_model())


def test_warm_start_run_records_the_cloning(tmp_path):
    from cardenv.train.trainer import train

    config = TrainConfig(total_timesteps=512, n_envs=2, vec_env="dummy", n_steps=256, batch_size=256, n_epochs=1,
                         eval_every=0, checkpoint_every=0, final_eval_games=4, final_eval_fields=("heuristic",),
                         output_dir=str(tmp_path / "run"), progress_bar=False, env_kwargs=SHORT,
                         warm_start="heuristic", warm_start_decisions=2000, warm_start_epochs=2, kl_to_warm_start=0.5,
                         critic_warmup_steps=256)
    train(config)
    record = json.loads((tmp_path / "run" / "warm_start.json").read_text())
    assert record["agent"] == "heuristic" and record["decisions"] == 2000
    assert 0.5 < record["held_out_agreement"] <= 1.0
    agent = make_agent(f"ppo:{tmp_path / 'run' / 'final_model.zip'}", ruleset_info("onefifty_v0", **SHORT),
                       np.random.default_rng(0))
    assert agent.guide is None  # the network alone plays: no agent inside it


def test_warm_start_options_are_checked(tmp_path):
    with pytest.raises(ValueError, match="kl_to_warm_start pulls toward the cloned policy: it needs --warm-start"):
        TrainConfig(kl_to_warm_start=0.5)
    with pytest.raises(ValueError, match="warm_start_explore"):
        TrainConfig(warm_start="heuristic", warm_start_explore=1.5)
    with pytest.raises(ValueError, match="warm_start_decisions must be an integer of at least 1"):
        TrainConfig(warm_start="heuristic", warm_start_decisions=0)


def test_frame_stacked_demonstrations_are_what_the_stacked_policy_sees(tmp_path):
    """The recorded stacks equal the frames an agent of a frame-stacked model keeps when it
    plays the same decisions; and a frame-stacked run's model plays with its stack."""
    from cardenv.train.trainer import train

    stacked = collect_demonstrations("onefifty_v0", "heuristic", 200, seed=1, env_kwargs=SHORT, explore=0.0,
                                     frame_stack=3)
    plain = collect_demonstrations("onefifty_v0", "heuristic", 200, seed=1, env_kwargs=SHORT, explore=0.0)
    size = ruleset_info("onefifty_v0", **SHORT).layout.size
    assert stacked.observations.shape == (200, 3 * size)
    assert np.array_equal(stacked.observations[:, 2 * size:], plain.observations)  # the frame of now is last
    assert not stacked.observations[0, :2 * size].any()  # nothing before the first decision
    config = TrainConfig(total_timesteps=256, n_envs=1, vec_env="dummy", n_steps=256, batch_size=256, n_epochs=1,
                         eval_every=0, checkpoint_every=0, final_eval_games=4, final_eval_fields=("random_no_call",),
                         output_dir=str(tmp_path / "run"), progress_bar=False, env_kwargs=SHORT, frame_stack=3,
                         warm_start="heuristic", warm_start_decisions=500, warm_start_epochs=1)
    train(config)
    agent = make_agent(f"ppo:{tmp_path / 'run' / 'final_model.zip'}", ruleset_info("onefifty_v0", **SHORT),
                       np.random.default_rng(0))
    assert agent.frame_stack == 3 and agent.model.observation_space.shape == (3 * size,)
    from cardenv.envs.info import make_raw_env
    from cardenv.eval.tournament import play_game

    others = [make_agent("random_no_call", agent.info, np.random.default_rng(s)) for s in (1, 2, 3)]
    assert play_game(make_raw_env("onefifty_v0", **SHORT), [agent, *others], seed=0) > 0
    assert agent.frames.frames.any()  # it remembered its decisions


def test_stacked_demonstrations_equal_each_seats_frame_history_replayed():
    """Each decision's stack, put together from the frames stored once, equals what a
    FrameHistory per seat holds when the recorded games are replayed (the straightforward
    reference: one stacked copy per decision)."""
    from cardenv.agents.guide import policy_observation_space
    from cardenv.envs.frame_stack import FrameHistory
    from cardenv.envs.info import make_raw_env

    kwargs = {**SHORT, "memory": "none"}
    demos = collect_demonstrations("kaboom_v0", "heuristic", 400, seed=5, env_kwargs=kwargs, explore=0.0,
                                   frame_stack=4)
    info = ruleset_info("kaboom_v0", **kwargs)
    env = make_raw_env("kaboom_v0", **kwargs)
    rng = np.random.default_rng(5)
    for _ in range(info.num_players):  # the teachers' seeds come first
        rng.integers(2**63)
    stacks = demos.stacked(np.arange(len(demos)))
    histories = [FrameHistory(policy_observation_space(info, guided=False), 4) for _ in range(info.num_players)]
    for i in range(len(demos)):
        if i == 0 or env.game.is_terminal:
            env.reset(seed=int(rng.integers(2**31)))
            for history in histories:
                history.clear()
        seat = env.game.current_player
        frame = env.observe(env.agent_selection)["observation"].astype(np.float16)
        assert np.array_equal(stacks[i], histories[seat].stacked(frame).astype(np.float32)), i
        histories[seat].commit(frame)
        env.step(int(demos.actions[i]))
        env.step_done_agents()
    assert demos.games > 1  # the replay crossed a game's end
