"""Policies from anywhere: the agent specs ``python:MODULE:NAME`` and ``onnx:FILE[#sample]``,
and ONNX export (cardenv.train.export). Each kind plays legal moves on every ruleset,
everywhere a spec is taken (tournaments, fields, mixtures, search priors, the single-seat
view, play); the exported shipped policy plays the moves of ``ppo:pretrained``; every bad
spec is one line, exit status 2 on the command line."""

from __future__ import annotations

import io
import sys
import textwrap

import numpy as np
import pytest

from cardenv.agents import make_agent, make_raw_env, parse_spec, ruleset_info
from cardenv.agents.pretrained import shipped_rulesets
from cardenv.cli import main
from cardenv.eval.tournament import play_game, run_tournament
from cardenv.rulesets import ruleset_names

RULESETS = ruleset_names()

POLICIES = '''
import numpy as np

RESETS = []
NOT_A_FUNCTION = 3


def lowest_legal(observation):
    """The legal action with the lowest id."""
    return int(np.flatnonzero(observation["action_mask"])[0])


def always_zero(observation):
    return 0


def not_an_int(observation):
    return "draw"


class RandomLegal:
    """The class protocol: Cls(info, rng), reset(), act(observation)."""

    def __init__(self, info, rng):
        self.actions = len(info.action_table)
        self.rng = rng

    def reset(self):
        RESETS.append(1)

    def act(self, observation):
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


class NoAct:
    def __init__(self, info, rng):
        pass
'''


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("policies") / "my_policies.py"
    path.write_text(textwrap.dedent(POLICIES))
    return str(path)


@pytest.fixture
def policy_module(policy_file, monkeypatch) -> str:
    """The same policies as an importable module (its folder on sys.path)."""
    import os

    monkeypatch.syspath_prepend(os.path.dirname(policy_file))
    return "my_policies"


def _tournament(ruleset: str, candidate: str, field: list[str] | None = None, games: int | None = None, seed: int = 0):
    n = ruleset_info(ruleset).num_players
    result = run_tournament(ruleset, candidate, field or ["random_no_call"], games=games or n, seed=seed)
    assert result.games == (games or n)
    return result


# --- python:MODULE:NAME ---------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", RULESETS)
def test_python_specs_play_legal_moves_on_every_ruleset(ruleset, policy_file, policy_module):
    for spec in (f"python:{policy_file}:lowest_legal", f"python:{policy_file}:RandomLegal",
                 f"python:{policy_module}:RandomLegal"):
        _tournament(ruleset, spec)
    # In the field, and in a mixture.
    _tournament(ruleset, "heuristic", [f"python:{policy_file}:lowest_legal|python:{policy_file}:RandomLegal"])


def test_the_class_gets_the_agents_seeded_generator_and_a_reset_per_game(policy_file):
    spec = f"python:{policy_file}:RandomLegal"
    first = _tournament("cut_v0", spec, games=8, seed=3)
    again = _tournament("cut_v0", spec, games=8, seed=3)
    other = _tournament("cut_v0", spec, games=8, seed=4)
    assert first.win_share == again.win_share and first.mean_points_per_round == again.mean_points_per_round
    assert (first.win_share, first.mean_points_per_round) != (other.win_share, other.mean_points_per_round)
    policies = sys.modules[make_agent(spec, ruleset_info("cut_v0"), np.random.default_rng(0)).policy.__module__]
    before = len(policies.RESETS)
    _tournament("cut_v0", spec, games=4)
    assert len(policies.RESETS) - before == 4


def test_a_file_is_imported_once_and_a_module_by_its_name(policy_file, policy_module):
    info = ruleset_info("onefifty_v0")
    a = make_agent(f"python:{policy_file}:RandomLegal", info, np.random.default_rng(0))
    b = make_agent(f"python:{policy_file}:RandomLegal", info, np.random.default_rng(0))
    assert type(a.policy) is type(b.policy)
    c = make_agent(f"python:{policy_module}:RandomLegal", info, np.random.default_rng(0))
    assert type(c.policy).__module__ == "my_policies"


def test_an_agent_subclass_is_used_as_it_is(tmp_path):
    path = tmp_path / "agent_class.py"
    path.write_text("from cardenv.agents import Agent\nimport numpy as np\n\n"
                    "class Lowest(Agent):\n    name = 'lowest'\n\n"
                    "    def choose(self, observation, state, seat):\n"
                    "        return int(np.flatnonzero(observation['action_mask'])[0])\n")
    agent = make_agent(f"python:{path}:Lowest", ruleset_info("kaboom_v0"), np.random.default_rng(0))
    assert agent.name == "lowest"
    _tournament("kaboom_v0", f"python:{path}:Lowest")


def test_an_illegal_or_malformed_action_is_an_error_never_corrected(policy_file):
    info = ruleset_info("onefifty_v0")
    env = make_raw_env("onefifty_v0")
    for name, error, message in (("always_zero", ValueError, "which the action mask forbids; legal now: ["),
                                 ("not_an_int", TypeError, "returned 'draw' (str), not an action id")):
        spec = f"python:{policy_file}:{name}"
        agent = make_agent(spec, info, np.random.default_rng(0))
        env.reset(seed=0)
        observation = env.observe(env.agent_selection)
        if name == "always_zero":
            assert not observation["action_mask"][0]  # action 0 is not legal at the first decision
        with pytest.raises(error) as caught:
            agent.act(observation, env.game, 0)
        assert message in str(caught.value) and spec in str(caught.value)
        assert len(str(caught.value).splitlines()) == 1


# --- onnx:FILE -------------------------------------------------------------------------------
def linear_network(path, inputs: int, outputs: int, seed: int = 0, mask: str | None = None) -> str:
    """A one-layer network (random weights) written with onnx's helper: observation
    [batch, inputs] -> logits [batch, outputs]; with ``mask`` ("bool" or "float") it
    also takes an action_mask input and adds it to the logits."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    weights = numpy_helper.from_array(rng.normal(size=(inputs, outputs)).astype(np.float32), "weights")
    bias = numpy_helper.from_array(rng.normal(size=outputs).astype(np.float32), "bias")
    graph_inputs = [helper.make_tensor_value_info("observation", TensorProto.FLOAT, ["batch", inputs])]
    nodes = [helper.make_node("Gemm", ["observation", "weights", "bias"], ["logits" if mask is None else "gemm"])]
    if mask is not None:
        kind = TensorProto.BOOL if mask == "bool" else TensorProto.FLOAT
        graph_inputs.append(helper.make_tensor_value_info("action_mask", kind, ["batch", outputs]))
        nodes += [helper.make_node("Cast", ["action_mask"], ["mask_float"], to=TensorProto.FLOAT),
                  helper.make_node("Add", ["gemm", "mask_float"], ["logits"])]
    graph = helper.make_graph(nodes, "policy", graph_inputs,
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", outputs])],
                              initializer=[weights, bias])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def network_for(ruleset: str, tmp_path, mask: str | None = None, extra_inputs: int = 0, seed: int = 0) -> str:
    info = ruleset_info(ruleset)
    name = f"{ruleset}_{mask}_{extra_inputs}_{seed}.onnx"
    return linear_network(tmp_path / name, info.layout.size + extra_inputs, len(info.action_table), seed, mask)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_onnx_specs_play_legal_moves_on_every_ruleset(ruleset, tmp_path):
    import onnxruntime  # noqa: F401  (the test extra)
    plain = network_for(ruleset, tmp_path)
    for spec in (f"onnx:{plain}", f"onnx:{plain}#sample", f"onnx:{network_for(ruleset, tmp_path, 'bool')}",
                 f"onnx:{network_for(ruleset, tmp_path, 'float')}"):
        _tournament(ruleset, spec)
    _tournament(ruleset, "heuristic", [f"onnx:{plain}|random"])


def test_onnx_plays_the_most_likely_legal_action_and_samples_from_the_seeded_generator(tmp_path):
    import onnxruntime  # noqa: F401  (the test extra)
    path = network_for("onefifty_v0", tmp_path, seed=1)
    info = ruleset_info("onefifty_v0")
    greedy = make_agent(f"onnx:{path}", info, np.random.default_rng(0))
    sampler = [make_agent(f"onnx:{path}#sample", info, np.random.default_rng(seed)) for seed in (5, 5, 6)]
    env = make_raw_env("onefifty_v0")
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    mask = observation["action_mask"]
    logits = greedy.logits(observation)
    assert greedy.act(observation, env.game, 0) == int(np.argmax(np.where(mask > 0, logits, -np.inf)))
    probabilities = greedy.probabilities(observation, env.game, 0)
    assert probabilities.sum() == pytest.approx(1.0) and not probabilities[mask == 0].any()
    draws = [[agent.act(observation, env.game, 0) for _ in range(30)] for agent in sampler]
    assert draws[0] == draws[1] != draws[2]
    assert all(mask[a] for row in draws for a in row)


def test_an_onnx_agent_copies_and_pickles(tmp_path):
    import copy
    import pickle

    import onnxruntime  # noqa: F401  (the test extra)
    info = ruleset_info("cut_v0")
    agent = make_agent(f"onnx:{network_for('cut_v0', tmp_path)}#sample", info, np.random.default_rng(2))
    env = make_raw_env("cut_v0")
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    for copier in (copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a))):
        copied = copier(agent)  # the generator's state too: it samples what the original samples
        assert copied.session is not agent.session
        np.testing.assert_array_equal(copied.logits(observation), agent.logits(observation))
        assert [copied.act(observation, env.game, 0) for _ in range(20)] == \
            [agent.act(observation, env.game, 0) for _ in range(20)]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_new_specs_are_search_priors(ruleset, tmp_path, policy_file):
    import onnxruntime  # noqa: F401  (the test extra)
    for prior in (f"onnx:{network_for(ruleset, tmp_path)}", f"python:{policy_file}:lowest_legal"):
        assert parse_spec(f"ismcts:3@{prior}")[0] == "ismcts"
        _tournament(ruleset, f"ismcts:3@{prior}", games=ruleset_info(ruleset).num_players)


def test_new_specs_are_single_seat_opponents_and_play_opponents(tmp_path, policy_file):
    import onnxruntime  # noqa: F401  (the test extra)
    from cardenv.human.play import play
    from cardenv.train import SingleSeatEnv

    opponents = [f"onnx:{network_for('cut_v0', tmp_path)}", f"python:{policy_file}:RandomLegal",
                 f"python:{policy_file}:lowest_legal"]
    view = SingleSeatEnv("cut_v0", opponents)
    view.reset(seed=0)
    for _ in range(50):
        _, _, terminated, truncated, _ = view.step(int(np.flatnonzero(view.action_masks())[0]))
        if terminated or truncated:
            view.reset()
    out = io.StringIO()  # the person sits last: the three opponents move before the first question
    assert play("cut_v0", 3, opponents, 1, {}, read=lambda prompt: "q", out=out) == 0
    assert "quit" in out.getvalue()


def test_the_train_opponent_takes_the_new_specs(tmp_path, policy_file):
    import onnxruntime  # noqa: F401  (the test extra)
    from cardenv.train.config import TrainConfig

    network = network_for("onefifty_v0", tmp_path)
    TrainConfig(ruleset="onefifty_v0", opponent=f"onnx:{network}|python:{policy_file}:RandomLegal").check_setup()
    with pytest.raises(ValueError, match="takes observations of shape"):
        TrainConfig(ruleset="onefifty_v0", opponent=f"onnx:{network_for('cut_v0', tmp_path)}").check_setup()


# --- export ----------------------------------------------------------------------------------
def _decisions(ruleset: str, specs: tuple[str, str], decisions: int):
    """The first agent plays every seat; at each decision both agents choose from the same
    observation. Yields (observation, their actions, both agents)."""
    info = ruleset_info(ruleset)
    reference, other = (make_agent(spec, info, np.random.default_rng(0)) for spec in specs)
    env = make_raw_env(ruleset)
    seen = game = 0
    while seen < decisions:
        env.reset(seed=game)
        game += 1
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            seat = env.possible_agents.index(name)
            action = reference.act(observation, env.game, seat)
            yield observation, action, other.act(observation, env.game, seat), (reference, other), env.game, seat
            seen += 1
            if seen == decisions:
                return
            env.step(action)


@pytest.mark.parametrize("ruleset", shipped_rulesets())
def test_the_exported_shipped_policy_plays_the_moves_of_ppo_pretrained(ruleset, tmp_path):
    pytest.importorskip("sb3_contrib")
    import onnxscript  # noqa: F401  (the test extra)
    import onnxruntime  # noqa: F401  (the test extra)
    from cardenv.train.export import export_onnx

    path = export_onnx("pretrained", tmp_path / "pretrained.onnx", ruleset)
    count = 0
    for observation, ppo_action, onnx_action, (ppo, exported), state, seat in _decisions(
            ruleset, ("ppo:pretrained", f"onnx:{path}"), 300):
        assert onnx_action == ppo_action
        np.testing.assert_allclose(exported.probabilities(observation, state, seat),
                                   ppo.probabilities(observation, state, seat), atol=1e-4)
        count += 1
    assert count == 300


def test_a_plain_torch_module_exports_and_plays(tmp_path):
    torch = pytest.importorskip("torch")
    import onnxscript  # noqa: F401  (the test extra)
    import onnxruntime  # noqa: F401  (the test extra)
    from torch import nn

    from cardenv.train.export import export_onnx

    info = ruleset_info("kaboom_v0")
    torch.manual_seed(0)
    module = nn.Sequential(nn.Linear(info.layout.size, 16), nn.Tanh(), nn.Linear(16, len(info.action_table)))
    path = export_onnx(module, tmp_path / "plain.onnx", "kaboom_v0")
    agent = make_agent(f"onnx:{path}", info, np.random.default_rng(0))
    env = make_raw_env("kaboom_v0")
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    with torch.no_grad():
        expected = module(torch.as_tensor(observation["observation"]).reshape(1, -1))[0].numpy()
    np.testing.assert_allclose(agent.logits(observation), expected, atol=1e-5)
    assert play_game(env, [make_agent(f"onnx:{path}", info, np.random.default_rng(s)) for s in range(4)], 0) > 0
    # A network for another ruleset is refused by name.
    with pytest.raises(ValueError, match="was exported for kaboom_v0, not cut_v0"):
        make_agent(f"onnx:{path}", ruleset_info("cut_v0"), np.random.default_rng(0))
    wrong = nn.Linear(info.layout.size + 1, len(info.action_table))
    with pytest.raises(ValueError, match=rf"does not take observations \[batch, {info.layout.size}\] of kaboom_v0"):
        export_onnx(wrong, tmp_path / "wrong.onnx", "kaboom_v0")


def test_a_guided_policy_is_not_exported(tmp_path):
    pytest.importorskip("sb3_contrib")
    import onnxscript  # noqa: F401  (the test extra)
    from cardenv.train.export import export_onnx

    with pytest.raises(ValueError, match="guided by 'heuristic'"):
        export_onnx("pretrained_guided", tmp_path / "guided.onnx", "cut_v0")


# --- one-line errors -------------------------------------------------------------------------
def _bad_specs(policy_file: str, tmp_path) -> list[tuple[list[str], str]]:
    wrong_size = network_for("onefifty_v0", tmp_path, extra_inputs=5)
    size = ruleset_info("onefifty_v0").layout.size
    return [
        (["eval", "onefifty_v0", "--agent", "python:no_such_module_xyz:act"],
         "python module 'no_such_module_xyz' is not importable"),
        (["eval", "onefifty_v0", "--agent", "python:no_such_pkg_xyz.sub:act"],
         "python module 'no_such_pkg_xyz.sub' is not importable"),
        (["eval", "onefifty_v0", "--agent", "python:/nonexistent/policies.py:act"],
         "python policy file '/nonexistent/policies.py' does not exist"),
        (["eval", "onefifty_v0", "--agent", f"python:{policy_file}:missing"],
         f"'{policy_file}' has no 'missing'"),
        (["eval", "onefifty_v0", "--agent", f"python:{policy_file}:NOT_A_FUNCTION"],
         "'NOT_A_FUNCTION' in"),
        (["eval", "onefifty_v0", "--agent", f"python:{policy_file}:NoAct"], "class 'NoAct' in"),
        (["eval", "onefifty_v0", "--agent", f"python:{policy_file}"], "the python agent needs a module"),
        (["eval", "onefifty_v0", "--agent", "onnx:/nonexistent/policy.onnx"],
         "onnx model file '/nonexistent/policy.onnx' does not exist"),
        (["eval", "onefifty_v0", "--agent", "onnx:/nonexistent/policy.onnx#greedy"],
         "(after '#' it takes sample, not 'greedy')"),
        (["eval", "onefifty_v0", "--agent", "onnx"], "the onnx agent needs a model file"),
        (["eval", "onefifty_v0", "--agent", f"onnx:{wrong_size}"],
         (f"onnx model '{wrong_size}' takes observations of shape ['batch', {size + 5}], but onefifty_v0 with "
          f"default options has observations of size {size}")),
        (["eval", "onefifty_v0", "--agent", "heuristic", "--field", f"random,onnx:{wrong_size},random"],
         "takes observations of shape"),
        (["eval", "onefifty_v0", "--agent", f"ismcts:5@onnx:{wrong_size}"], "takes observations of shape"),
        (["eval", "onefifty_v0", "--agent", "ismcts:5@python:/nonexistent/policies.py:act"],
         "python policy file '/nonexistent/policies.py' does not exist"),
        (["play", "onefifty_v0", "--opponents", f"onnx:{wrong_size}"], "takes observations of shape"),
        (["play", "onefifty_v0", "--opponents", f"python:{policy_file}:missing"], "has no 'missing'"),
        (["train", "onefifty_v0", "--output-dir", str(tmp_path / "run"), "--opponent", f"onnx:{wrong_size}"],
         "takes observations of shape"),
        (["train", "onefifty_v0", "--output-dir", str(tmp_path / "run"), "--opponent",
          f"heuristic|python:{policy_file}:missing"], "has no 'missing'"),
    ]


def test_every_bad_spec_is_one_line_with_exit_status_2(policy_file, tmp_path, capsys):
    import onnxruntime  # noqa: F401  (the test extra)
    for argv, message in _bad_specs(policy_file, tmp_path):
        if argv[0] == "train":
            pytest.importorskip("sb3_contrib")
        with pytest.raises(SystemExit) as exit_info:
            sys.exit(main(argv))
        captured = capsys.readouterr()
        assert exit_info.value.code == 2, (argv, captured.err)
        assert captured.out == ""
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1, captured.err
        assert message in lines[0], (argv, lines[0])
    assert not (tmp_path / "run").exists()


def test_an_error_inside_the_users_module_is_one_line(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("import no_such_dependency_xyz\n")
    assert main(["eval", "cut_v0", "--agent", f"python:{path}:act"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "failed: ModuleNotFoundError: No module named 'no_such_dependency_xyz'" in err


@pytest.mark.parametrize("spec", ["onnx:{network}", "ismcts:3@onnx:{network}", "heuristic|onnx:{network}"])
def test_a_missing_onnxruntime_is_one_line_naming_the_extra(spec, tmp_path, monkeypatch, capsys):
    network = network_for("cut_v0", tmp_path)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as without the extra installed
    assert main(["eval", "cut_v0", "--agent", spec.format(network=network), "--games", "4", "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1, captured.err
    assert "needs the 'onnx' extra" in captured.err and "pip install 'cardenv[onnx]'" in captured.err
