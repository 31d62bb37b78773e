"""Magnetic mirror descent (``cardenv train --magnet-kl``): the magnet's pull and moves,
its options, a run end to end on a mini variant on a tiny budget, and a sampled policy
measured exactly on a mini variant (``ppo:FILE#sample``)."""

from __future__ import annotations

import copy
import csv

import numpy as np
import pytest
import torch

from cardenv import MINI_VARIANTS
from cardenv.agents import make_agent, ruleset_info
from cardenv.train.config import TrainConfig
from cardenv.train.regularised_ppo import kl_to_magnet, regularised_ppo_class
from cardenv.train.single_seat import SingleSeatEnv

MINI = dict(MINI_VARIANTS["kaboom_v0"])


def _model(**kwargs):
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: SingleSeatEnv("kaboom_v0", "random_no_call", MINI)])
    return regularised_ppo_class()("MlpPolicy", venv, n_steps=128, batch_size=64, n_epochs=2, device="cpu", seed=0,
                                   learning_rate=3e-3, **kwargs)


def _weights(module) -> dict:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def test_kl_to_the_magnet_is_zero_for_the_same_policy_and_grows_apart():
    model = _model()
    magnet = copy.deepcopy(model.policy)
    env = model.get_env()
    observations = torch.as_tensor(env.reset(), dtype=torch.float32)
    masks = torch.as_tensor(np.stack(env.env_method("action_masks")))
    with torch.no_grad():
        assert float(kl_to_magnet(magnet, model.policy, observations, masks)) == pytest.approx(0.0, abs=1e-7)
        for p in model.policy.action_net.parameters():
            p.add_(torch.randn_like(p))
        assert float(kl_to_magnet(magnet, model.policy, observations, masks)) > 1e-3


@pytest.mark.parametrize("every", [0, 1])
def test_the_magnet_stays_or_moves_to_the_policy_every_n_updates(every):
    model = _model()
    model.pull_toward_magnet(2.0, every)
    start = _weights(model.policy)
    model.learn(512)  # four updates
    assert "train/kl_to_magnet" in model.logger.name_to_value
    magnet, policy = _weights(model.magnet), _weights(model.policy)
    assert any(not torch.equal(policy[k], start[k]) for k in policy)  # the policy learned
    if every:  # moved after the last update: the policy as it is now
        assert all(torch.equal(magnet[k], policy[k]) for k in magnet)
    else:  # the starting policy still
        assert all(torch.equal(magnet[k], start[k]) for k in magnet)
    assert "magnet" in regularised_ppo_class()._excluded_save_params(model)  # not saved with the model


def test_magnet_options_are_checked():
    with pytest.raises(ValueError, match="magnet_kl must be a finite number at least 0, got -1.0"):
        TrainConfig(magnet_kl=-1.0)
    with pytest.raises(ValueError, match="magnet_every moves the magnet of magnet_kl: it needs --magnet-kl"):
        TrainConfig(magnet_every=3)
    with pytest.raises(ValueError, match="magnet_every must be an integer of at least 0"):
        TrainConfig(magnet_kl=1.0, magnet_every=-1)


def test_an_mmd_run_on_a_mini_variant_end_to_end(tmp_path):
    from cardenv.train.trainer import train

    config = TrainConfig(ruleset="kaboom_v0", opponent="selfplay", total_timesteps=1024, n_envs=2, vec_env="dummy",
                         n_steps=256, batch_size=512, n_epochs=2, snapshot_every=512, pool_size=1, eval_every=0,
                         checkpoint_every=512, progress_bar=False, env_kwargs=MINI, magnet_kl=1.0, magnet_every=1,
                         output_dir=str(tmp_path / "run"))
    summary = train(config, evaluate=False)
    assert summary["timesteps"] == 1024
    with open(tmp_path / "run" / "logs" / "progress.csv") as log:
        kls = [row["train/kl_to_magnet"] for row in csv.DictReader(log) if row.get("train/kl_to_magnet")]
    assert len(kls) >= 1 and all(float(kl) >= 0 for kl in kls)
    assert list((tmp_path / "run" / "snapshots").glob("*.zip"))  # the opponents played its snapshots
    # The model plays as ppo:FILE, greedy, and as ppo:FILE#sample, drawing from its distribution.
    info = ruleset_info("kaboom_v0", **MINI)
    greedy = make_agent(f"ppo:{summary['model']}", info, np.random.default_rng(0))
    sampled = make_agent(f"ppo:{summary['model']}#sample", info, np.random.default_rng(0))
    assert greedy.deterministic and not sampled.deterministic


@pytest.mark.slow
def test_a_sampled_policy_is_measured_exactly_on_a_mini_variant(tmp_path):
    """``ppo:FILE#sample``'s tabular policy is the network's own distribution (one
    reading per information state, exact), and differs from the greedy one's figure."""
    from cardenv.adapters.openspiel_policies import agent_exploitability

    model = _model()
    model.learn(256)
    path = tmp_path / "model.zip"
    model.save(path)
    sampled = agent_exploitability("kaboom_v0", f"ppo:{path}#sample")
    greedy = agent_exploitability("kaboom_v0", f"ppo:{path}")
    assert sampled.exact_distribution and sampled.samples == 1
    assert 0 < sampled.exploitability and sampled.exploitability != greedy.exploitability
