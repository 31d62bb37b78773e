"""The recurrent frame-stack reader (cardenv.train.frame_encoder) and
`cardenv train --frame-encoder gru`."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from cardenv.agents import make_agent, ruleset_info
from cardenv.train.config import TrainConfig

SHORT = {"single_round": True, "max_turns_per_round": 40, "memory": "none"}


def test_the_encoder_reads_the_frames_in_order_and_passes_the_observation_now_through():
    import torch
    from gymnasium import spaces

    from cardenv.train.frame_encoder import RecurrentFrameEncoder

    torch.manual_seed(0)
    encoder = RecurrentFrameEncoder(spaces.Box(0, 1, (4 * 5,), np.float32), num_frames=4, hidden_size=3)
    assert encoder.features_dim == 3 + 5
    stack = torch.rand(2, 20)
    features = encoder(stack)
    assert features.shape == (2, 8)
    assert torch.equal(features[:, 3:], stack[:, 15:])  # the observation now, as it is
    swapped = torch.cat([stack[:, 5:10], stack[:, :5], stack[:, 10:]], dim=1)  # the two oldest frames swapped
    assert not torch.allclose(encoder(swapped)[:, :3], features[:, :3])  # the order is read
    with pytest.raises(ValueError, match=r"a stack of 3 frames needs a vector whose length divides by 3, got shape \(20,\)"):
        RecurrentFrameEncoder(spaces.Box(0, 1, (20,), np.float32), num_frames=3)


def test_frame_encoder_options_are_checked():
    with pytest.raises(ValueError, match="frame_encoder must be one of mlp, gru, got 'lstm'"):
        TrainConfig(frame_encoder="lstm")
    with pytest.raises(ValueError, match="--frame-encoder gru reads a frame stack: it needs --frame-stack 2 or more, got 1"):
        TrainConfig(frame_encoder="gru")
    with pytest.raises(ValueError, match="--frame-encoder gru takes no --guide"):
        TrainConfig(frame_encoder="gru", frame_stack=4, guide="heuristic")
    with pytest.raises(ValueError, match="frame_encoder_size must be an integer of at least 1"):
        TrainConfig(frame_encoder="gru", frame_stack=4, frame_encoder_size=0)


def test_a_gru_run_saves_its_encoder_its_agent_plays_with_its_frames_and_resume_checks_it(tmp_path):
    from cardenv.envs.info import make_raw_env
    from cardenv.eval.tournament import play_game
    from cardenv.train.frame_encoder import RecurrentFrameEncoder
    from cardenv.train.trainer import train

    config = TrainConfig("kaboom_v0", total_timesteps=256, n_envs=1, vec_env="dummy", n_steps=256, batch_size=256,
                         n_epochs=1, eval_every=0, checkpoint_every=0, final_eval_games=2,
                         final_eval_fields=("random_no_call",), output_dir=str(tmp_path / "run"), progress_bar=False,
                         env_kwargs=SHORT, frame_stack=3, frame_encoder="gru", frame_encoder_size=16,
                         warm_start="heuristic", warm_start_decisions=600, warm_start_epochs=2)
    train(config)
    assert json.loads((tmp_path / "run" / "warm_start.json").read_text())["held_out_agreement"] > 0
    info = ruleset_info("kaboom_v0", **SHORT)
    agent = make_agent(f"ppo:{tmp_path / 'run' / 'final_model.zip'}", info, np.random.default_rng(0))
    encoder = agent.model.policy.features_extractor
    assert isinstance(encoder, RecurrentFrameEncoder) and encoder.num_frames == 3
    assert agent.frame_stack == 3 and agent.actor is None  # torch plays it: the numpy actor is for plain MLPs
    others = [make_agent("random_no_call", info, np.random.default_rng(s)) for s in (1, 2, 3)]
    assert play_game(make_raw_env("kaboom_v0", **SHORT), [agent, *others], seed=0) > 0
    assert agent.frames.frames.any()  # it remembered its decisions
    with pytest.raises(ValueError, match="was trained with --frame-encoder gru; --frame-encoder must match it, got mlp"):
        train(replace(config, resume=True, frame_encoder="mlp", total_timesteps=512))


def test_cloning_trains_the_encoder_with_the_actor():
    """The encoder is the actor's memory: behaviour cloning and the critic warm-up treat
    its weights as the actor's."""
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from cardenv.envs.frame_stack import SingleSeatFrameStack
    from cardenv.train.frame_encoder import RecurrentFrameEncoder
    from cardenv.train.regularised_ppo import regularised_ppo_class
    from cardenv.train.single_seat import SingleSeatEnv
    from cardenv.train.warm_start import actor_parameters, clone_into, collect_demonstrations

    venv = DummyVecEnv([lambda: SingleSeatFrameStack(SingleSeatEnv("cut_v0", "random_no_call", SHORT), 3)])
    model = regularised_ppo_class()(
        "MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, device="cpu", seed=0,
        policy_kwargs={"net_arch": [32], "features_extractor_class": RecurrentFrameEncoder,
                       "features_extractor_kwargs": {"num_frames": 3, "hidden_size": 8}})
    encoder = model.policy.features_extractor
    assert {id(p) for p in encoder.parameters()} <= {id(p) for p in actor_parameters(model.policy)}
    before = {k: v.clone() for k, v in encoder.state_dict().items()}
    clone_into(model.policy, collect_demonstrations("cut_v0", "heuristic", 300, env_kwargs=SHORT, frame_stack=3),
               epochs=1)
    assert all(not torch.equal(before[k], v) for k, v in encoder.state_dict().items())
