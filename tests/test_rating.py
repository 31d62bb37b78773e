"""Rating a policy (cardenv rate): the Plackett–Luce fit, ladders made and loaded, score
cards on a tiny protocol (its ladder made here, in a temporary folder)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from cardenv.rating import ladder as ladder_module
from cardenv.rating import protocol as protocol_module
from cardenv.rating.ladder import load_ladder, make_ladder
from cardenv.rating.plackett_luce import fit_strengths, log_likelihood, outcome_log_probability, outcome_of
from cardenv.rating.protocol import RatingProtocol
from tests.test_cli import assert_user_error

RULESET = "onefifty_v0"
OTHER = "cut_v0"
TINY = RatingProtocol(version="tiny", rungs=("random_no_call", "heuristic", "heuristic_cautious", "ismcts:2"),
                      search_rungs=("ismcts:2",), games=16, search_games=4, quick_games=8, seed=11)


@pytest.fixture(scope="module")
def tiny_ladders(tmp_path_factory):
    """The tiny protocol's ladder of RULESET, made once, and the protocol registered."""
    directory = tmp_path_factory.mktemp("ladders")
    (directory / f"v{TINY.version}").mkdir()
    for ruleset in (RULESET, OTHER):
        path = directory / f"v{TINY.version}" / f"{ruleset}.json"
        path.write_text(json.dumps(make_ladder(ruleset, TINY, report=lambda line: None)))
    return directory


@pytest.fixture
def tiny(tiny_ladders, monkeypatch):
    monkeypatch.setattr(ladder_module, "LADDER_DIR", tiny_ladders)
    monkeypatch.setitem(protocol_module.PROTOCOLS, TINY.version, TINY)
    return TINY


# --- the fit --------------------------------------------------------------------------------
def test_outcome_groups_level_players_and_orders_best_first():
    assert outcome_of([3, 0, 0, 1], [2, 1, 4, 2]) == ((0,), (1, 3), (0,))


def test_outcome_probabilities_sum_to_one_over_every_order():
    theta = np.array([0.3, -1.0, 1.2])
    import itertools

    total = sum(np.exp(outcome_log_probability(theta, tuple((p,) for p in order)))
                for order in itertools.permutations(range(3)))
    assert total == pytest.approx(1.0)
    # a level pair is the pair in either order
    pair = np.exp(outcome_log_probability(theta, ((0, 1), (2,))))
    assert pair == pytest.approx(sum(np.exp(outcome_log_probability(theta, o)) for o in (((0,), (1,), (2,)),
                                                                                           ((1,), (0,), (2,)))))


def test_fit_recovers_strengths_of_simulated_games():
    rng = np.random.default_rng(5)
    truth = np.array([0.0, 1.0, 2.0])
    counts = Counter()
    for _ in range(3000):
        players = list(rng.choice(3, size=4))
        weights = np.exp(truth[players])
        order = []
        left = list(range(4))
        while left:
            w = weights[left] / weights[left].sum()
            order.append(left.pop(int(rng.choice(len(left), p=w))))
        ranks = [order.index(s) + 1 for s in range(4)]
        counts[outcome_of(players, ranks)] += 1
    fit = fit_strengths(counts, 3, {0: 0.0}, prior_draws=0.0)
    errors = np.sqrt(np.diag(fit.covariance))
    assert np.all(np.abs(fit.theta - truth) < 4 * np.maximum(errors, 1e-9))
    assert fit.theta[0] == 0.0 and errors[0] == 0.0 and errors[1] > 0
    # the maximum: no small step raises the likelihood
    for step in (np.array([0, 0.01, 0]), np.array([0, 0, -0.01])):
        assert log_likelihood(fit.theta + step, counts) < log_likelihood(fit.theta, counts)


def test_prior_keeps_a_player_who_always_wins_finite():
    counts = Counter({((1,), (0,), (0,), (0,)): 50})
    assert fit_strengths(counts, 2, {0: 0.0}, prior_draws=0.0).theta[1] > 15  # no maximum: it runs off
    fit = fit_strengths(counts, 2, {0: 0.0})
    assert fit.at_bound == () and 0 < fit.theta[1] < 10


def test_fit_needs_an_anchor():
    with pytest.raises(ValueError, match="anchor"):
        fit_strengths(Counter({((0,), (1,)): 1}), 2, {})


# --- ladders ------------------------------------------------------------------------------------
def test_ladder_ratings_are_fitted_from_its_counts(tiny):
    ladder = load_ladder(RULESET, tiny)
    ratings = ladder.ratings()
    assert ratings["random_no_call"] == (0.0, 0.0)
    assert ratings["heuristic"][0] == pytest.approx(1000.0)
    # refitting the stored counts by hand gives the same strengths
    counts = Counter()
    for cell in ladder.cells.values():
        counts.update(ladder_module.cell_counts(tiny, cell))
    theta = fit_strengths(counts, len(tiny.rungs), {0: 0.0}).theta
    for i, rung in enumerate(tiny.rungs):
        assert ratings[rung][0] == pytest.approx(1000 * theta[i] / theta[1], abs=1e-6)


def test_unfinished_or_missing_ladders_are_one_line_errors(tiny, tmp_path):
    with pytest.raises(ValueError, match="no ladder for 'kaboom_v0'"):
        load_ladder("kaboom_v0", tiny)
    data = json.loads((ladder_module.LADDER_DIR / "vtiny" / f"{RULESET}.json").read_text())
    data["cells"] = data["cells"][:-1]
    (tmp_path / "vtiny").mkdir()
    (tmp_path / "vtiny" / f"{RULESET}.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="unfinished: it lacks ismcts:2 vs ismcts:2"):
        load_ladder(RULESET, tiny, tmp_path)


# --- score cards -------------------------------------------------------------------------------
def test_rate_is_deterministic_and_shows_every_rung_on_the_same_deals(tiny):
    from cardenv.rating.rate import rate

    first = rate(RULESET, "heuristic_no_call", protocol=tiny)
    second = rate(RULESET, "heuristic_no_call", protocol=tiny)
    assert first.to_dict() == second.to_dict()
    assert [row.field for row in first.rows] == list(tiny.rungs)
    assert first.games == 3 * 16 + 4
    low, high = first.rating_ci95
    assert low < first.rating < high
    # a rung rated as a candidate plays exactly its ladder games: the card read from the ladder
    from cardenv.rating.rate import rung_card

    heuristic = rate(RULESET, "heuristic", protocol=tiny)
    for row in heuristic.rows:
        assert row.candidate == row.rungs["heuristic"]
    assert heuristic.to_dict() == rung_card(load_ladder(RULESET, tiny), "heuristic").to_dict()


def test_quick_rate_meets_only_the_rungs_that_do_not_search(tiny):
    from cardenv.rating.rate import rate

    card = rate(RULESET, "random", quick=True, protocol=tiny)
    assert [row.field for row in card.rows] == ["random_no_call", "heuristic", "heuristic_cautious"]
    assert all(row.candidate.games == 8 for row in card.rows)
    assert card.command == "cardenv rate onefifty_v0 --agent random --protocol tiny --quick"


def test_a_policy_written_in_a_file_is_rated_like_any_agent(tiny, tmp_path):
    from cardenv.rating.rate import rate

    policy = tmp_path / "lowest.py"
    policy.write_text("import numpy as np\n\n\ndef act(observation):\n"
                      "    return int(np.flatnonzero(observation['action_mask'])[0])\n")
    card = rate(RULESET, f"python:{policy}:act", quick=True, protocol=tiny)
    assert card.agent == f"python:{policy}:act" and card.games == 3 * 8
    assert card.rating < card.ladder["heuristic"][0]  # always the lowest legal action: no heuristic


def test_cli_rate_writes_a_card_json_and_png(tiny, tmp_path, capsys):
    from cardenv.cli import main

    out = tmp_path / "card.json"
    png = tmp_path / "card.png"
    assert main(["rate", RULESET, "--agent", "heuristic_no_call", "--protocol", "tiny", "--quick", "--json",
                 str(out), "--png", str(png), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "rating protocol tiny (quick)" in text and "command: cardenv rate" in text
    card = json.loads(out.read_text())
    assert card["agent"] == "heuristic_no_call" and card["protocol"]["version"] == "tiny"
    assert card["cardenv_version"] and png.read_bytes().startswith(b"\x89PNG")


def test_cli_rate_several_rulesets_is_one_card_over_them(tiny, tmp_path, capsys):
    from cardenv.cli import main

    out = tmp_path / "cards.json"
    assert main(["rate", "--rulesets", RULESET, OTHER, "--agent", "random", "--protocol", "tiny", "--quick",
                 "--json", str(out), "--no-progress"]) == 0
    data = json.loads(out.read_text())
    assert [card["ruleset"] for card in data["cards"]] == [RULESET, OTHER]
    assert data["command"] == f"cardenv rate --rulesets {RULESET} {OTHER} --agent random --protocol tiny --quick"
    text = capsys.readouterr().out
    assert f"random on {RULESET}: rating" in text and f"random on {OTHER}: rating" in text


@pytest.mark.slow
def test_rate_exploit_and_mini_go_on_the_card(tiny, monkeypatch):
    """--exploit (a best response, here on a one-rollout budget) and --mini (OpenSpiel's
    exact exploitability) add their figures, without timings, to the card."""
    from cardenv.rating.rate import rate
    from cardenv.train import best_response

    monkeypatch.setattr(best_response, "EXPLOIT_TIMESTEPS", best_response.ROLLOUT)
    monkeypatch.setattr(best_response, "EXPLOIT_GAMES", 8)
    carte = ladder_module.LADDER_DIR / f"v{tiny.version}" / "carte_v0.json"  # the smallest mini variant
    if not carte.exists():
        carte.write_text(json.dumps(make_ladder("carte_v0", tiny, report=lambda line: None)))
    card = rate("carte_v0", "random", quick=True, protocol=tiny, exploit=True, mini=True)
    exploit, mini = card.extras["exploit"], card.extras["mini"]
    assert exploit["bound"] == "lower" and exploit["timesteps"] == best_response.ROLLOUT
    assert "lower bound" in exploit["describe"]
    assert mini["exploitability"] == pytest.approx(mini["uniform_exploitability"])  # random is uniform, read exactly
    assert not any(key.endswith("seconds") for key in (*exploit, *mini))


@pytest.mark.parametrize("argv, message", [
    (["rate", "nope_v0", "--agent", "heuristic"], "unknown ruleset 'nope_v0'"),
    (["rate", "--agent", "heuristic"], "give one ruleset or --rulesets"),
    (["rate", RULESET, "--agent", "nonsense"], "nonsense"),
    (["rate", "--rulesets", "all", "--agent", "heuristic", "--protocol", "tiny"], "has no ladder for kaboom_v0"),
    (["rate", RULESET, "--rulesets", OTHER, "--agent", "heuristic", "--protocol", "tiny"], "not both"),
    (["rate", RULESET, "--agent", "heuristic", "--protocol", "tiny", "--mini", "--workers", "0"], "at least 1"),
    (["rate", RULESET, "--agent", "heuristic", "--protocol", "9"], "invalid choice: '9'"),
])
def test_cli_rate_bad_inputs_are_one_line_exit_2(tiny, argv, message, capsys):
    assert_user_error(argv, message, capsys)
