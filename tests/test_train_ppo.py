"""A short MaskablePPO run completes, saves a loadable model, and the model plays."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, ruleset_info
from cardenv.agents.pretrained import SHIPPED_VARIANTS, pretrained_model_path, shipped_rulesets
from cardenv.eval.tournament import play_game
from cardenv.rulesets import ruleset_names
from cardenv.train.config import TrainConfig
from cardenv.train.trainer import train


def _short(tmp_path, **overrides) -> TrainConfig:
    values = dict(total_timesteps=2048, n_envs=2, vec_env="dummy", n_steps=512, batch_size=256, n_epochs=1,
                  eval_every=1024, eval_games=4, checkpoint_every=1024, final_eval_games=4,
                  output_dir=str(tmp_path / "run"), progress_bar=False,
                  env_kwargs={"single_round": True, "max_turns_per_round": 60})  # short games keep the test fast
    values.update(overrides)
    return TrainConfig(**values)


def test_short_training_run_saves_a_loadable_model(tmp_path):
    import torch

    validating = torch.distributions.Distribution._validate_args
    summary = train(_short(tmp_path))
    # The run skips torch's distribution checks for speed, and puts the global setting back.
    assert torch.distributions.Distribution._validate_args is validating
    out = tmp_path / "run"
    assert summary["timesteps"] >= 2048
    assert summary["steps_per_second"] > 0
    for name in ("final_model.zip", "learning_curve.png", "eval.json", "eval_table.txt", "eval_history.csv",
                 "monitor.csv", "logs/progress.csv"):
        assert (out / name).exists(), name
    checkpoints = list((out / "checkpoints").glob("model_*_steps.zip"))
    assert checkpoints
    assert make_agent(f"ppo:{checkpoints[0]}", ruleset_info("onefifty_v0", single_round=True, max_turns_per_round=60),
                      np.random.default_rng(0)).guide is None  # a checkpoint carries its metadata, so it plays
    evaluations = json.loads((out / "eval.json").read_text())
    assert [e["field"][0] for e in evaluations] == ["random_no_call", "heuristic"]

    info = ruleset_info("onefifty_v0", single_round=True, max_turns_per_round=60)
    agent = make_agent(f"ppo:{out / 'final_model.zip'}", info, np.random.default_rng(0))
    others = [make_agent("random_no_call", info, np.random.default_rng(s)) for s in (1, 2, 3)]
    env = make_raw_env("onefifty_v0", single_round=True, max_turns_per_round=60)
    assert play_game(env, [agent, *others], seed=0) > 0


def test_the_final_table_explains_itself_and_shows_the_shipped_policy(tmp_path):
    from cardenv.eval import run_tournament
    from cardenv.train.trainer import shipped_policy_for

    summary = train(_short(tmp_path, env_kwargs={}, total_timesteps=1024, eval_every=0, checkpoint_every=0,
                           final_eval_fields=("random_no_call", "heuristic")))
    evaluations = json.loads((tmp_path / "run" / "eval.json").read_text())
    # Against the heuristic only, the field it was made to beat.
    assert [(e["candidate"], e["field"][0]) for e in evaluations] == [
        ("ppo", "random_no_call"), ("ppo", "heuristic"), ("ppo:pretrained", "heuristic")]
    shipped = run_tournament("onefifty_v0", "ppo:pretrained", "heuristic", 4, seed=evaluations[1]["seed"])
    assert evaluations[2]["seed"] == evaluations[1]["seed"] and evaluations[2]["win_share"] == shipped.win_share
    table = summary["evaluation_table"]
    assert (tmp_path / "run" / "eval_table.txt").read_text() == table + "\n"
    assert "0.25 is an even share among 4 players" in table
    assert "heuristic: the ruleset's rule-based player" in table and "ppo:pretrained: the policy that ships" in table
    # Every column is explained, each in a line of its own.
    from cardenv.eval.tournament import TABLE_COLUMNS

    legend = table.split("the other columns:\n", 1)[1].splitlines()
    assert [line.split(": ", 1)[0].strip() for line in legend] == [c for c in TABLE_COLUMNS if c != "win share"]
    assert all(table.count(f"| {column}") == 1 or column == "candidate" for column in TABLE_COLUMNS)
    # Only where the shipped policy was made for the run's options.
    assert shipped_policy_for(TrainConfig(ruleset="cut_v0")) == "ppo:pretrained"
    assert shipped_policy_for(TrainConfig(ruleset="cut_v0", env_kwargs={"num_players": 4})) == "ppo:pretrained"
    assert shipped_policy_for(TrainConfig(ruleset="cut_v0", env_kwargs={"num_players": 3})) is None


def test_a_run_trains_whole_rollouts_says_so_and_counts_to_them(tmp_path, capsys):
    summary = train(_short(tmp_path, total_timesteps=700, n_envs=1, n_steps=256, batch_size=128, eval_every=256,
                           checkpoint_every=0, final_eval_fields=("random_no_call",)))
    err = capsys.readouterr().err
    assert ("training to 768 learner steps, not 700: PPO trains in whole rollouts of 256 (n_steps 256 × n_envs 1"
            in err)
    assert summary["timesteps"] == 768
    # The progress (here the periodic evaluations' lines) counts to the steps trained: it ends at n/n.
    assert "512/768 steps" in err and "768/768 steps" in err and "/700" not in err


def test_self_play_run_uses_frozen_snapshots(tmp_path):
    train(_short(tmp_path, opponent="selfplay", snapshot_every=1024, eval_every=0, checkpoint_every=0,
                 final_eval_fields=("random_no_call",)))
    snapshots = sorted((tmp_path / "run" / "snapshots").glob("snapshot_*.zip"))
    assert len(snapshots) >= 2


def test_ppo_model_for_another_configuration_is_refused(tmp_path):
    train(_short(tmp_path, total_timesteps=512, n_envs=1, eval_every=0, checkpoint_every=0,
                 final_eval_fields=("random_no_call",)))
    with pytest.raises(ValueError, match="trained for observations"):
        make_agent(f"ppo:{tmp_path / 'run' / 'final_model.zip'}",
                   ruleset_info("onefifty_v0", single_round=True, max_turns_per_round=60, num_players=3),
                   np.random.default_rng(0))


def test_a_run_folder_is_not_overwritten_silently_and_a_run_resumes(tmp_path):
    import zipfile

    from cardenv.agents.ppo import model_metadata

    config = _short(tmp_path, total_timesteps=1024, n_envs=1, eval_every=0, checkpoint_every=0,
                    final_eval_fields=("random_no_call",), final_eval_games=4)
    train(config)
    model = tmp_path / "run" / "final_model.zip"
    # The model says what it was trained on, so evaluating it needs no --env-arg.
    assert model_metadata(str(model)) == {"ruleset": "onefifty_v0",
                                          "env_kwargs": {"single_round": True, "max_turns_per_round": 60},
                                          "guide": None, "frame_stack": 1, "frame_encoder": "mlp"}
    assert "data" in zipfile.ZipFile(model).namelist()
    with pytest.raises(FileExistsError, match="--resume.*--overwrite"):
        train(config)
    with pytest.raises(ValueError, match="was trained without a guide; --guide must match it"):
        train(_short(tmp_path, total_timesteps=2048, n_envs=1, resume=True, guide="heuristic"))
    with pytest.raises(ValueError, match="was trained with --frame-stack 1; --frame-stack must match it, got 4"):
        train(_short(tmp_path, total_timesteps=2048, n_envs=1, resume=True, frame_stack=4))
    summary = train(_short(tmp_path, total_timesteps=2048, n_envs=1, eval_every=0, checkpoint_every=0,
                           final_eval_fields=("random_no_call",), final_eval_games=4, resume=True))
    assert summary["timesteps"] >= 2048
    # The episodes before the resume are kept, in a part of their own.
    assert (tmp_path / "run" / "monitor.1.csv").exists() and (tmp_path / "run" / "monitor.csv").exists()
    train(_short(tmp_path, total_timesteps=512, n_envs=1, eval_every=0, checkpoint_every=0,
                 final_eval_fields=("random_no_call",), final_eval_games=4, overwrite=True))
    assert not (tmp_path / "run" / "monitor.1.csv").exists()


def test_cli_eval_takes_the_env_options_a_model_was_trained_with(tmp_path, capsys):
    from cardenv.cli import main

    train(_short(tmp_path, total_timesteps=512, n_envs=1, eval_every=0, checkpoint_every=0,
                 final_eval_fields=("random_no_call",), final_eval_games=4))
    model = tmp_path / "run" / "final_model"  # found with .zip added, as stable-baselines3 does
    assert main(["eval", "onefifty_v0", "--agent", f"ppo:{model}", "--games", "4", "--no-progress",
                 "--json", "-"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["env_kwargs"] == {"single_round": True, "max_turns_per_round": 60}
    assert ("env options: single_round=True, max_turns_per_round=60 (a model's recorded training options, "
            "updated by --env-arg)") in captured.err  # said, so that the options are no surprise
    assert main(["eval", "onefifty_v0", "--agent", "heuristic", "--games", "4", "--no-progress", "--json", "-"]) == 0
    assert "env options" not in capsys.readouterr().err  # nothing recorded, nothing to say
    assert main(["eval", "cut_v0", "--agent", f"ppo:{model}", "--games", "4"]) == 2
    assert "was trained on onefifty_v0, not cut_v0" in capsys.readouterr().err


def test_train_options_are_checked(tmp_path):
    with pytest.raises(ValueError, match="vec_env must be one of auto, dummy, subproc, got 'fast'"):
        _short(tmp_path, vec_env="fast")
    with pytest.raises(ValueError, match="exclude each other"):
        _short(tmp_path, resume=True, overwrite=True)
    with pytest.raises(ValueError, match="n_envs must be an integer of at least 1"):
        _short(tmp_path, n_envs=0)


@pytest.mark.parametrize(("ruleset", "variant"), [(r, v) for v in SHIPPED_VARIANTS for r in shipped_rulesets(v)])
def test_every_shipped_policy_loads_by_name_and_plays_its_ruleset(ruleset, variant):
    from cardenv.agents.ppo import model_metadata

    env_kwargs = model_metadata(pretrained_model_path(ruleset, variant))["env_kwargs"]
    info = ruleset_info(ruleset, **env_kwargs)
    agent = make_agent(f"ppo:{variant}", info, np.random.default_rng(0))
    others = [make_agent("heuristic", info, np.random.default_rng(s)) for s in range(1, info.num_players)]
    assert play_game(make_raw_env(ruleset, **env_kwargs), [agent, *others], seed=0) > 0


@pytest.mark.parametrize("ruleset", shipped_rulesets())
def test_the_shipped_policy_is_a_network_on_the_observation_alone(ruleset):
    """ppo:pretrained runs no agent inside it (no guide): what it plays comes from the
    env's observation through the network, so the leak tests of the observation cover it.
    Its input may end with pieces its observer derives from the observation alone
    (carte_v0's meld_hints, leak-checked as env pieces too), appended by the agent."""
    from cardenv.agents.ppo import _derived_size

    info = ruleset_info(ruleset)
    agent = make_agent("ppo:pretrained", info, np.random.default_rng(0))
    assert agent.guide is None and agent.actor is not None
    assert set(agent.derived) <= set(info.observer_class.derived_pieces.values())
    expected = (info.layout.size + _derived_size(info, agent.derived)) * agent.frame_stack
    assert agent.model.observation_space.shape == (expected,)


@pytest.mark.parametrize("ruleset", shipped_rulesets("pretrained_memory"))
def test_the_memory_policy_remembers_with_its_own_frames_and_plays_either_memory(ruleset):
    """ppo:pretrained_memory was trained under memory="none" with a frame stack: it sees
    the observation alone (no guide), keeps its own frames and plays legal games under both
    memory settings (under either it sees what memory="none" shows: Agent.memory)."""
    from cardenv.agents.ppo import model_metadata

    recorded = model_metadata(pretrained_model_path(ruleset, "pretrained_memory"))
    assert recorded["env_kwargs"]["memory"] == "none" and recorded["frame_stack"] > 1
    for memory in ("none", "perfect"):
        info = ruleset_info(ruleset, memory=memory)
        agent = make_agent("ppo:pretrained_memory", info, np.random.default_rng(0))
        assert agent.guide is None and agent.frame_stack == recorded["frame_stack"]
        others = [make_agent("heuristic", info, np.random.default_rng(s)) for s in range(1, info.num_players)]
        assert play_game(make_raw_env(ruleset, memory=memory), [agent, *others], seed=0) > 0
        assert agent.frames.frames.any()


@pytest.mark.parametrize("ruleset", shipped_rulesets("pretrained_memory"))
def test_the_memory_policy_sees_what_memory_none_shows_in_an_env_of_perfect_memory(ruleset):
    """Agent.memory: in an env of memory="perfect" a runner gives ppo:pretrained_memory the
    observation memory="none" shows, so it plays the game it plays there, move for move,
    while the perfect-memory observation would have shown it more."""
    from cardenv.agents.base import observation_for

    envs = {memory: make_raw_env(ruleset, memory=memory) for memory in ("perfect", "none")}
    seated = {memory: [make_agent(spec, ruleset_info(ruleset, memory=memory), np.random.default_rng(seat))
                       for seat, spec in enumerate(["ppo:pretrained_memory"] + ["random_no_call"] * 3)]
              for memory in envs}
    assert seated["perfect"][0].memory == "none"
    hidden_from_it = 0
    for env in envs.values():
        env.reset(seed=5)
    perfect, none = envs["perfect"].game, envs["none"].game
    while not perfect.is_terminal:
        seat = perfect.current_player
        given = {memory: observation_for(seated[memory][seat], envs[memory], seat) for memory in envs}
        if seat == 0:
            np.testing.assert_array_equal(given["perfect"]["observation"], given["none"]["observation"])
            hidden_from_it += not np.array_equal(envs["perfect"].observe("player_0")["observation"],
                                                 given["perfect"]["observation"])
        actions = {memory: seated[memory][seat].act(given[memory], envs[memory].game, seat) for memory in envs}
        assert actions["perfect"] == actions["none"]
        for memory, env in envs.items():
            env.step(actions[memory])
            env.step_done_agents()
    assert none.is_terminal and hidden_from_it > 0


@pytest.mark.parametrize("ruleset", shipped_rulesets())
def test_no_shipped_policy_plays_the_same_few_moves_whatever_happens(ruleset):
    """A policy that found a degenerate optimum against random play (draw, put the card in
    slot 0, pass every window) wins there but is no reference opponent: a shipped policy
    uses the ruleset's powers and windows, at least six kinds of action over two games."""
    info = ruleset_info(ruleset)
    kinds: set[str] = set()

    class Recorded(type(make_agent("ppo:pretrained", info, np.random.default_rng(0)))):
        def choose(self, observation, state, seat):
            action = super().choose(observation, state, seat)
            kinds.add(info.action_table.specs[action].kind)
            return action

    for seed in range(2):
        agent = Recorded(info, np.random.default_rng(seed), pretrained_model_path(ruleset), agent_factory=make_agent)
        others = [make_agent("random_no_call", info, np.random.default_rng(s)) for s in range(1, info.num_players)]
        play_game(make_raw_env(ruleset), [agent, *others], seed=seed)
    assert len(kinds) >= 6, sorted(kinds)


def test_pretrained_policies_ship_and_a_missing_one_is_named():
    from cardenv.agents.pretrained import pretrained_model_path

    assert set(shipped_rulesets()) <= set(ruleset_names())
    assert {"onefifty_v0", "cut_v0"} <= set(shipped_rulesets())
    assert shipped_rulesets("pretrained_guided") == ["cut_v0", "kaboom_v0", "onefifty_v0"]
    assert shipped_rulesets("pretrained_memory") == ["carte_v0"]
    shipped = ", ".join(shipped_rulesets())
    with pytest.raises(ValueError, match=f"no pretrained policy ships for poker_v0; 'ppo:pretrained' is available "
                                         f"for: {shipped}$"):
        pretrained_model_path("poker_v0")
    with pytest.raises(ValueError, match="no pretrained_guided policy ships for carte_v0; 'ppo:pretrained_guided' is "
                                         "available for: cut_v0, kaboom_v0, onefifty_v0$"):
        pretrained_model_path("carte_v0", "pretrained_guided")
    with pytest.raises(ValueError, match="unknown shipped policy 'pretrained_best'; shipped policies are pretrained, "
                                         "pretrained_guided"):
        pretrained_model_path("cut_v0", "pretrained_best")


def test_an_exported_policy_plays_as_the_trained_one_and_is_smaller(tmp_path):
    from cardenv.agents.ppo import load_model, masked_probabilities
    from cardenv.train.trainer import export_policy

    train(_short(tmp_path, eval_every=0, checkpoint_every=0, final_eval_fields=("random_no_call",)))
    trained = tmp_path / "run" / "final_model.zip"
    exported = tmp_path / "exported.zip"
    export_policy(trained, exported)
    assert exported.stat().st_size < 0.6 * trained.stat().st_size  # the optimizer's moments are gone
    before, after = load_model(str(trained)), load_model(str(exported))
    info = ruleset_info("onefifty_v0", single_round=True, max_turns_per_round=60)
    env = make_raw_env("onefifty_v0", single_round=True, max_turns_per_round=60)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert np.array_equal(masked_probabilities(before, observation["observation"], observation["action_mask"]),
                          masked_probabilities(after, observation["observation"], observation["action_mask"]))
    agent = make_agent(f"ppo:{exported}", info, np.random.default_rng(0))  # the metadata came along
    assert agent.model is not None


def _untrained_guided_model(ruleset: str, path, guide_weight: float = 4.0, **env_kwargs):
    from sb3_contrib import MaskablePPO

    from cardenv.train.guided_policy import GuidedMaskablePolicy
    from cardenv.train.single_seat import SingleSeatEnv
    from cardenv.train.trainer import save_model

    env = SingleSeatEnv(ruleset, "random_no_call", env_kwargs, guide="heuristic")
    model = MaskablePPO(GuidedMaskablePolicy, env, policy_kwargs={"guide_weight": guide_weight}, device="cpu", seed=0)
    save_model(model, path, {"ruleset": ruleset, "env_kwargs": env_kwargs, "guide": "heuristic"})
    return model


@pytest.mark.parametrize("ruleset", ["onefifty_v0", "cut_v0"])
def test_an_untrained_guided_policy_plays_exactly_as_its_guide(ruleset, tmp_path):
    """The action net starts near zero, so the guide's weight decides every argmax: the
    same seeded games as the heuristic itself, decision for decision. With weight 0 the
    policy is the network alone and the games differ."""
    from cardenv.eval.tournament import run_tournament

    def games(candidate):
        result = run_tournament(ruleset, candidate, ["heuristic"], 4, seed=3)
        return [(o.final_scores, o.candidate_points, o.steps) for o in result.outcomes]

    _untrained_guided_model(ruleset, tmp_path / "guided.zip")
    _untrained_guided_model(ruleset, tmp_path / "unguided.zip", guide_weight=0.0)
    assert games(f"ppo:{tmp_path / 'guided.zip'}") == games("heuristic")
    assert games(f"ppo:{tmp_path / 'unguided.zip'}") != games("heuristic")


def test_a_guided_policys_guide_is_built_by_the_agent_factory_given():
    from cardenv.agents.ppo import PPOAgent
    from cardenv.agents.pretrained import pretrained_model_path

    info = ruleset_info("onefifty_v0")
    model = pretrained_model_path("onefifty_v0", "pretrained_guided")  # trained with the heuristic as its guide
    built = []

    def recording_factory(spec, info, rng):
        built.append(make_agent(spec, info, rng))
        return built[-1]

    agent = PPOAgent(info, np.random.default_rng(0), model, agent_factory=recording_factory)
    assert agent.guide.spec == "heuristic" and [agent.guide.agent] == built
    with pytest.raises(ValueError, match="was trained with the guide 'heuristic': it needs an agent_factory") as caught:
        PPOAgent(info, np.random.default_rng(0), model)
    assert "\n" not in str(caught.value)


def test_the_guided_observation_ends_with_the_guides_choice():
    from cardenv.train.single_seat import SingleSeatEnv

    env = SingleSeatEnv("onefifty_v0", "random_no_call", guide="heuristic", seat=0)
    size = env.info.layout.size
    observation, _ = env.reset(seed=4)
    assert observation.shape == env.observation_space.shape == (size + len(env.info.action_table),)
    terminated = truncated = False
    decisions = 0
    while not (terminated or truncated):
        assert env.observation_space.contains(observation)
        one_hot = observation[size:]
        assert one_hot.sum() == 1.0 and env.action_masks()[int(np.argmax(one_hot))]
        assert np.array_equal(observation[:size], env.env.observe(env.env.possible_agents[0])["observation"])
        observation, _, terminated, truncated, _ = env.step(int(np.argmax(one_hot)))
        decisions += 1
    assert not observation[size:].any()  # no decision after the game: no guide
    assert decisions > 10


def test_a_guided_run_records_its_guide_and_its_snapshots_play_guided(tmp_path):
    from cardenv.agents.ppo import PolicyPoolAgent, model_metadata

    train(_short(tmp_path, guide="heuristic", opponent="selfplay", snapshot_every=1024, eval_every=0,
                 checkpoint_every=1024, final_eval_fields=("heuristic",)))
    model = tmp_path / "run" / "final_model.zip"
    assert model_metadata(str(model))["guide"] == "heuristic"
    assert model_metadata(str(next((tmp_path / "run" / "checkpoints").glob("*.zip"))))["guide"] == "heuristic"
    info = ruleset_info("onefifty_v0", single_round=True, max_turns_per_round=60)
    agent = make_agent(f"ppo:{model}", info, np.random.default_rng(0))
    assert agent.guide is not None and agent.guide.spec == "heuristic"
    pool = PolicyPoolAgent(info, np.random.default_rng(1), agent_factory=make_agent)
    for snapshot in sorted((tmp_path / "run" / "snapshots").glob("snapshot_*.zip")):
        pool.add_snapshot(str(snapshot))
    others = [make_agent("heuristic", info, np.random.default_rng(s)) for s in (2, 3)]
    env = make_raw_env("onefifty_v0", single_round=True, max_turns_per_round=60)
    assert play_game(env, [agent, pool, *others], seed=0) > 0
    assert pool._current.guide is not None


def _compare_numpy_actor_with_torch(model, positions) -> int:
    from cardenv.agents.ppo import NumpyActor, masked_probabilities

    actor = NumpyActor.from_model(model)
    assert actor is not None
    for vector, mask in positions:
        expected = masked_probabilities(model, vector, mask)
        got = actor.probabilities(vector, mask)
        np.testing.assert_allclose(got, expected, atol=2e-6)
        assert np.array_equal(got > 0, mask > 0) and int(np.argmax(got)) == int(np.argmax(expected))
    return len(positions)


def _compare_numpy_critic_with_torch(model, positions) -> int:
    from cardenv.agents.ppo import NumpyCritic, predicted_value

    critic = NumpyCritic.from_model(model)
    assert critic is not None
    values = [critic.value(vector) for vector, _ in positions]
    np.testing.assert_allclose(values, [predicted_value(model, vector) for vector, _ in positions], atol=1e-5)
    assert len(set(values)) > 1  # the positions differ, and so do their values
    return len(positions)


def _random_play_positions(env, count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observation, mask) of ``count`` learner decisions of a single-seat env under random play."""
    rng = np.random.default_rng(seed)
    positions = []
    vector, _ = env.reset(seed=seed)
    while len(positions) < count:
        mask = env.action_masks()
        positions.append((vector, mask.astype(np.int8)))
        vector, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            vector, _ = env.reset()
    return positions


@pytest.mark.parametrize(("ruleset", "variant"), [(r, v) for v in SHIPPED_VARIANTS for r in shipped_rulesets(v)])
def test_the_numpy_actor_and_critic_match_torch_on_played_positions(ruleset, variant):
    """The agent's numpy forward passes against the policy's own torch distribution and value."""
    from cardenv.agents.ppo import load_model, model_metadata
    from cardenv.agents.pretrained import pretrained_model_path
    from cardenv.train.single_seat import SingleSeatEnv

    path = pretrained_model_path(ruleset, variant)
    model = load_model(path)
    recorded = model_metadata(path)  # the training env's options: the input the network was made for
    env = SingleSeatEnv(ruleset, "random_no_call", recorded.get("env_kwargs"), guide=recorded.get("guide"))
    if recorded.get("frame_stack", 1) > 1:
        from cardenv.envs.frame_stack import SingleSeatFrameStack

        env = SingleSeatFrameStack(env, recorded["frame_stack"])
    positions = _random_play_positions(env, 150, seed=1)
    assert _compare_numpy_actor_with_torch(model, positions) == 150
    assert _compare_numpy_critic_with_torch(model, positions) == 150


def test_the_numpy_actor_adds_the_guide_term(tmp_path):
    import torch

    from cardenv.train.single_seat import SingleSeatEnv

    model = _untrained_guided_model("onefifty_v0", tmp_path / "guided.zip", single_round=True)
    with torch.no_grad():
        for parameter in model.policy.action_net.parameters():
            parameter.add_(0.5 * torch.randn_like(parameter))  # a network that competes with the guide
        model.policy.guide_weight.fill_(1.5)
    env = SingleSeatEnv("onefifty_v0", "random_no_call", {"single_round": True}, guide="heuristic")
    assert _compare_numpy_actor_with_torch(model, _random_play_positions(env, 100, seed=5)) == 100


def test_a_policy_trained_with_meld_hints_plays_alike_in_an_env_without_them(tmp_path):
    """carte_v0's meld_hints pieces are worked out from the rest of the observation: a
    policy trained with them gets them appended by its agent in an env without them,
    the same games decision for decision as in an env with them; and the appended values
    are the observer's own."""
    from sb3_contrib import MaskablePPO

    from cardenv.agents.ppo import PPOAgent
    from cardenv.eval.tournament import run_tournament
    from cardenv.games.carte.observation import meld_hints_of
    from cardenv.train.single_seat import SingleSeatEnv
    from cardenv.train.trainer import save_model

    hinted = {"num_players": 3, "meld_hints": True}
    model = MaskablePPO("MlpPolicy", SingleSeatEnv("carte_v0", "random_no_call", hinted), device="cpu", seed=0)
    path = tmp_path / "hinted.zip"
    save_model(model, path, {"ruleset": "carte_v0", "env_kwargs": hinted, "guide": None})

    def games(env_kwargs):
        result = run_tournament("carte_v0", f"ppo:{path}", ["heuristic"], 3, seed=4, env_kwargs=env_kwargs)
        return [(o.final_scores, o.candidate_points, o.steps) for o in result.outcomes]

    assert games({"num_players": 3}) == games(hinted)
    plain, with_hints = make_raw_env("carte_v0", num_players=3), make_raw_env("carte_v0", **hinted)
    for env in (plain, with_hints):
        env.reset(seed=2)
    rng, compared = np.random.default_rng(2), 0
    while not plain.terminations[plain.agent_selection] and compared < 300:
        vector, hinted_vector = (env.observe(env.agent_selection)["observation"] for env in (plain, with_hints))
        assert np.array_equal(np.concatenate([vector, meld_hints_of(plain.layout, vector)]), hinted_vector)
        legal = np.flatnonzero(plain.observe(plain.agent_selection)["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        for env in (plain, with_hints):
            env.step(action)
        compared += 1
    assert compared == 300
    with pytest.raises(ValueError, match=r"trained for observations \(4407,\) and 148 actions, but carte_v0 with .* has \(4300,\)") as caught:
        PPOAgent(ruleset_info("carte_v0", num_players=3), np.random.default_rng(0), model)  # no metadata given
    assert "\n" not in str(caught.value)


def test_a_frame_stacked_policy_trained_with_meld_hints_plays_alike_in_an_env_without_them(tmp_path):
    """The appended meld_hints pieces are part of every frame: a frame-stacked policy
    trained with them plays the same games in an env without them."""
    from sb3_contrib import MaskablePPO

    from cardenv.envs.frame_stack import SingleSeatFrameStack
    from cardenv.eval.tournament import run_tournament
    from cardenv.train.single_seat import SingleSeatEnv
    from cardenv.train.trainer import save_model

    hinted = {"num_players": 3, "meld_hints": True, "memory": "none"}
    env = SingleSeatFrameStack(SingleSeatEnv("carte_v0", "random_no_call", hinted), 3)
    model = MaskablePPO("MlpPolicy", env, device="cpu", seed=0)
    path = tmp_path / "hinted_stacked.zip"
    save_model(model, path, {"ruleset": "carte_v0", "env_kwargs": hinted, "guide": None, "frame_stack": 3})

    def games(env_kwargs):
        result = run_tournament("carte_v0", f"ppo:{path}", ["heuristic"], 3, seed=4, env_kwargs=env_kwargs)
        return [(o.final_scores, o.candidate_points, o.steps) for o in result.outcomes]

    assert games({"num_players": 3, "memory": "none"}) == games(hinted)


def test_a_mixed_field_with_selfplay_gets_the_learners_snapshots(tmp_path):
    """``--opponent heuristic|selfplay``: each seat is the heuristic or a snapshot of the
    learner, drawn per game; the snapshots reach the pool inside the mixture."""
    from cardenv.agents.base import MixtureAgent
    from cardenv.agents.ppo import PolicyPoolAgent
    from cardenv.train.trainer import make_training_env

    assert _short(tmp_path, opponent="heuristic|selfplay").uses_selfplay()
    assert not _short(tmp_path, opponent="heuristic|heuristic_no_call").uses_selfplay()
    env = make_training_env("onefifty_v0", "heuristic|selfplay", {"single_round": True}, 3, False)
    assert all(isinstance(agent, MixtureAgent) for agent in env.opponents)
    env.add_snapshot(str(tmp_path / "snapshot_1.zip"))
    pools = [inner for agent in env.opponents for inner in agent.agents if isinstance(inner, PolicyPoolAgent)]
    assert len(pools) == 3 and all(pool.snapshots == [str(tmp_path / "snapshot_1.zip")] for pool in pools)
    train(_short(tmp_path, opponent="heuristic|selfplay", snapshot_every=1024, eval_every=0, checkpoint_every=0,
                 final_eval_fields=("random_no_call",)))
    assert sorted((tmp_path / "run" / "snapshots").glob("snapshot_*.zip"))


def test_a_policy_agent_knows_the_reward_its_value_estimates():
    """PPOAgent.value is in the units of the rewards the model was trained on: read from the
    model's recorded env options, the env's defaults where none are recorded."""
    from cardenv.agents.ppo import PPOAgent, load_model
    from cardenv.envs.base import DEFAULT_REWARD_MODE, DEFAULT_REWARD_SCALE

    cut = make_agent("ppo:pretrained", ruleset_info("cut_v0"), np.random.default_rng(0))
    assert (cut.reward_mode, cut.reward_scale) == ("relative", 0.01)  # its recipe's --env-arg reward_mode=relative
    # A model object carries no record: an env with the pieces it reads (its match hints),
    # the default reward assumed.
    hinted = ruleset_info("onefifty_v0", match_hints=True)
    loaded = PPOAgent(hinted, np.random.default_rng(0), load_model(pretrained_model_path("onefifty_v0")))
    assert (loaded.reward_mode, loaded.reward_scale) == (DEFAULT_REWARD_MODE, DEFAULT_REWARD_SCALE)
    named = make_agent("ppo:pretrained", ruleset_info("onefifty_v0"), np.random.default_rng(1))
    assert (named.reward_mode, named.reward_scale) == ("relative", 0.01)
    plain, with_hints = make_raw_env("onefifty_v0"), make_raw_env("onefifty_v0", match_hints=True)
    for env in (plain, with_hints):
        env.reset(seed=3)
    seat = plain.game.current_player
    assert loaded.value(with_hints.observe(with_hints.agent_selection), with_hints.game, seat) == pytest.approx(
        named.value(plain.observe(plain.agent_selection), plain.game, seat))


def test_the_onefifty_policy_reads_the_observation_and_plays_the_default_env():
    """onefifty_v0's ppo:pretrained runs no agent inside it, and was trained with
    match_hints, which it appends itself from the observation of an env without them."""
    info = ruleset_info("onefifty_v0")
    agent = make_agent("ppo:pretrained", info, np.random.default_rng(0))
    assert agent.guide is None and agent.frames is None and len(agent.derived) == 1
    others = [make_agent("heuristic", info, np.random.default_rng(seed)) for seed in (1, 2, 3)]
    assert play_game(make_raw_env("onefifty_v0"), [agent, *others], seed=0) > 0
