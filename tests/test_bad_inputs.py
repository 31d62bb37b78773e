"""Bad input gets a clear error naming the culprit, never garbage.

Table-driven over both rulesets: constructor options, reset options, seeds and actions.
For every bad input the test checks the exception type (TypeError for a wrong type,
ValueError for a right type with a bad value, RuntimeError for a call in the wrong
order), that the one-line message names the culprit and shows the bad value's repr, and
that the same env object still resets and plays afterwards. The positive cases check
that numpy integers and ``np.bool_`` are accepted and normalised, and that every valid
starting score keeps observations inside ``observation_space``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from cardenv import carte_v0, cut_v0, kaboom_v0, onefifty_v0
from cardenv.core import validation
from cardenv.core.cards import parse_card, parse_cards
from cardenv.engine.options import SlotGameConfig
from cardenv.engine.rounds import IllegalActionError
from cardenv.envs.base import UnknownAgentError
from cardenv.games.carte import CarteConfig
from cardenv.games.cut import CutConfig
from cardenv.games.kaboom import KaboomConfig
from cardenv.games.onefifty import OneFiftyConfig
from tests.conftest import DOUBLE_DECK

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # PettingZoo's illegal-move and dead-step warnings

RULESETS = {"onefifty_v0": onefifty_v0, "cut_v0": cut_v0, "kaboom_v0": kaboom_v0, "carte_v0": carte_v0}
CONFIGS = {"onefifty_v0": OneFiftyConfig(), "cut_v0": CutConfig(), "kaboom_v0": KaboomConfig(),
           "carte_v0": CarteConfig()}
SLOT_RULESETS = ("onefifty_v0", "cut_v0", "kaboom_v0")  # target_score and max_hand_slots are theirs
NUM_PLAYERS = 4  # every ruleset's default

# Four distinct hands of four cards each: a valid scenario to vary one key of at a time.
HANDS = [["AS", "2S", "3S", "4S"], ["5S", "6S", "7S", "8S"], ["9S", "10S", "JS", "QS"], ["KS", "AH", "2H", "3H"]]
# Cards that HANDS does not use, for piles and overlong hands.
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SPARE = [f"{rank}{suit}" for suit in "DC" for rank in RANKS]
# carte_v0's 108 cards (R-01).


def with_hand(player: int, hand: Any) -> list:
    hands = [list(h) for h in HANDS]
    hands[player] = hand
    return hands


def with_card(player: int, slot: int, card: Any) -> list:
    hands = [list(h) for h in HANDS]
    hands[player][slot] = card
    return hands


def assert_clear(err: pytest.ExceptionInfo, expected: type, *culprits: str) -> None:
    """The exception has the expected type and a one-line message naming every culprit."""
    assert err.type is expected or (expected is ValueError and err.type is IllegalActionError), \
        f"expected {expected.__name__}, got {err.type.__name__}: {err.value}"
    message = str(err.value)
    assert "\n" not in message, f"message is not one line: {message!r}"
    for culprit in culprits:
        assert culprit in message, f"{culprit!r} is not named in: {message}"


def play_random(env, steps: int, seed: int = 0) -> None:
    """A few random legal steps (None for done agents), each observation in its space."""
    chooser = np.random.default_rng(seed)
    for _ in range(steps):
        if not env.agents:
            return
        observation, _, terminated, truncated, _ = env.last()
        assert env.observation_space(env.agent_selection).contains(observation)
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(chooser.choice(np.flatnonzero(observation["action_mask"]))))


def assert_still_works(env) -> None:
    """The same env object resets with a valid call and plays."""
    env.reset(seed=1)
    play_random(env, 6)
    env.reset(seed=2, options={"hands": HANDS, "starter": 1})
    play_random(env, 6)


def finish_game(env) -> None:
    """Play random legal actions until every agent is done and removed."""
    chooser = np.random.default_rng(0)
    while env.agents:
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(chooser.choice(np.flatnonzero(observation["action_mask"]))))


# --- constructor options -----------------------------------------------------------------
# (option, bad value, exception); the message must name the option and show repr(value).
CONSTRUCTOR_CASES = [
    ("num_players", "4", TypeError),
    ("num_players", None, TypeError),
    ("num_players", 4.0, TypeError),
    ("num_players", np.float64(4), TypeError),
    ("num_players", True, TypeError),
    ("num_players", [4], TypeError),
    ("num_players", 7, ValueError),
    ("num_players", 1, ValueError),
    ("num_players", -4, ValueError),
    ("target_score", "150", TypeError),
    ("target_score", 100.5, TypeError),
    ("target_score", 0, ValueError),
    ("target_score", -5, ValueError),
    ("max_turns_per_round", None, TypeError),
    ("max_turns_per_round", 0, ValueError),
    ("single_round", "no", TypeError),
    ("single_round", 1, TypeError),
    ("single_round", None, TypeError),
    ("memory", "goldfish", ValueError),
    ("memory", 0, TypeError),
    ("memory", None, TypeError),
    ("memory", ["perfect"], TypeError),
    ("max_hand_slots", 4, ValueError),
    ("max_hand_slots", 65, ValueError),
    ("max_hand_slots", np.float32(8), TypeError),
    ("max_hand_slots", "8", TypeError),
    ("max_rounds", 0, ValueError),
    ("max_rounds", "100", TypeError),
    ("max_rounds", 2.5, TypeError),
    ("recent_events", -1, ValueError),
    ("recent_events", 1.5, TypeError),
    ("render_mode", "rgb", ValueError),
    ("render_mode", 1, TypeError),
    ("render_omniscient", "yes", TypeError),
    ("render_omniscient", None, TypeError),
    ("reward_mode", "money", ValueError),
    ("reward_mode", None, TypeError),
    ("reward_scale", math.nan, ValueError),
    ("reward_scale", math.inf, ValueError),
    ("reward_scale", 0, ValueError),
    ("reward_scale", -1.0, ValueError),
    ("reward_scale", "0.01", TypeError),
    ("reward_scale", True, TypeError),
    ("eliminated_agents", "kept", ValueError),
    ("eliminated_agents", None, TypeError),
    ("eliminated_agents", True, TypeError),
]
CUT_CONSTRUCTOR_CASES = [
    ("power_on_replace", "yes", TypeError),
    ("power_on_replace", 0, TypeError),
]
KABOOM_CONSTRUCTOR_CASES = [
    ("num_players", 9, ValueError),  # KABOOM takes 2 to 8 players (K-01)
    ("elimination", "yes", TypeError),
    ("elimination", 1, TypeError),
    ("elimination", None, TypeError),
]
CARTE_CONSTRUCTOR_CASES = [
    ("starting_score", "100", TypeError),
    ("starting_score", 99.5, TypeError),
    ("starting_score", 0, ValueError),
    ("starting_score", -100, ValueError),
    ("starting_score", 10**6, ValueError),
]
SLOT_OPTIONS = ("target_score", "max_hand_slots")  # carte has neither (hands are multisets)
EXTRA_CONSTRUCTOR_CASES = {"cut_v0": CUT_CONSTRUCTOR_CASES, "kaboom_v0": KABOOM_CONSTRUCTOR_CASES,
                           "carte_v0": CARTE_CONSTRUCTOR_CASES}


def constructor_cases():
    for ruleset in RULESETS:
        extra = EXTRA_CONSTRUCTOR_CASES.get(ruleset, [])
        for option, value, error in CONSTRUCTOR_CASES + extra:
            if (option, value) == ("num_players", 7) and ruleset == "kaboom_v0":
                continue  # seven players are valid in KABOOM; nine are tried instead
            if ruleset == "carte_v0" and option in SLOT_OPTIONS:
                continue
            yield pytest.param(ruleset, option, value, error, id=f"{ruleset}-{option}={value!r}")


@pytest.mark.parametrize("ruleset, option, value, error", list(constructor_cases()))
@pytest.mark.parametrize("make", ["raw_env", "env"])
def test_bad_constructor_option(ruleset, option, value, error, make):
    with pytest.raises(error) as err:
        getattr(RULESETS[ruleset], make)(**{option: value})
    assert_clear(err, error, option, repr(value))


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("unknown", ["colour", "num_player", "seed"])
def test_unknown_constructor_option_is_named_with_the_accepted_ones(ruleset, unknown):
    with pytest.raises(TypeError) as err:
        RULESETS[ruleset].raw_env(**{unknown: 4})
    assert_clear(err, TypeError, repr(unknown), "accepted options", "num_players", "reward_mode", "max_rounds")


# --- reset options and seeds ----------------------------------------------------------------------
@dataclass(frozen=True)
class ResetCase:
    label: str
    error: type
    # Keyword arguments of reset(), made from the ruleset's default config.
    arguments: Callable[[SlotGameConfig], dict]
    # What the message must contain, made from the same config.
    culprits: Callable[[SlotGameConfig], tuple[str, ...]]


def options_case(label: str, error: type, options: Callable, culprits: Callable) -> ResetCase:
    return ResetCase(label, error, lambda c: {"seed": 0, "options": options(c)}, culprits)


RESET_CASES = [
    # seeds
    ResetCase("seed negative", ValueError, lambda c: {"seed": -1}, lambda c: ("seed", "-1")),
    ResetCase("seed float", TypeError, lambda c: {"seed": 1.5}, lambda c: ("seed", "1.5")),
    ResetCase("seed str", TypeError, lambda c: {"seed": "0"}, lambda c: ("seed", "'0'")),
    ResetCase("seed bool", TypeError, lambda c: {"seed": True}, lambda c: ("seed", "True")),
    # options itself
    ResetCase("options list", TypeError, lambda c: {"options": [("starter", 0)]},
              lambda c: ("options", "[('starter', 0)]")),
    ResetCase("options str", TypeError, lambda c: {"options": "starter=0"}, lambda c: ("options", "'starter=0'")),
    options_case("unknown key, a typo of hands", ValueError, lambda c: {"hand": HANDS},
                 lambda c: ("'hand'", "hands, draw_pile, discard_pile, starter, scores")),
    options_case("scenario nested under 'options'", ValueError, lambda c: {"options": {"hands": HANDS}},
                 lambda c: ("'options'", "hands, draw_pile, discard_pile, starter, scores")),
    options_case("'options' beside a scenario key", ValueError, lambda c: {"options": 1, "starter": 0},
                 lambda c: ("'options'", "hands, draw_pile, discard_pile, starter, scores")),
    # hands
    options_case("hands None", TypeError, lambda c: {"hands": None}, lambda c: ("hands", "None")),
    options_case("hands str", TypeError, lambda c: {"hands": "AS 2S"}, lambda c: ("hands", "'AS 2S'")),
    options_case("hands too few", ValueError, lambda c: {"hands": [["AS"]]}, lambda c: ("hands", "[['AS']]")),
    options_case("hands too many", ValueError, lambda c: {"hands": HANDS + [["4H"]]}, lambda c: ("hands", "'4H'")),
    options_case("hand str", TypeError, lambda c: {"hands": with_hand(1, "5S 6S")}, lambda c: ("hands[1]", "'5S 6S'")),
    options_case("hand None", TypeError, lambda c: {"hands": with_hand(2, None)}, lambda c: ("hands[2]", "None")),
    options_case("card int", TypeError, lambda c: {"hands": with_card(1, 0, 5)}, lambda c: ("hands[1][0]", "5")),
    options_case("card None", TypeError, lambda c: {"hands": with_card(2, 3, None)}, lambda c: ("hands[2][3]", "None")),
    options_case("card unknown", ValueError, lambda c: {"hands": with_card(0, 0, "ZZ")},
                 lambda c: ("hands[0][0]", "'ZZ'")),
    options_case("card 1S", ValueError, lambda c: {"hands": with_card(0, 1, "1S")}, lambda c: ("hands[0][1]", "'1S'")),
    options_case("card joker", ValueError, lambda c: {"hands": with_card(3, 0, "RJ")},
                 lambda c: ("hands[3][0]", "'RJ'")),
    # carte_v0's actions and observations call both jokers JK; a scenario names cards.
    options_case("card JK", ValueError, lambda c: {"hands": with_card(2, 0, "JK")},
                 lambda c: ("hands[2][0]", "'JK'", "'RJ' (red)", "'BJ' (black)", "either colour")),
    options_case("card twice in hands", ValueError, lambda c: {"hands": with_card(1, 0, "AS")},
                 lambda c: ("hands[1][0]", "'AS'")),
    options_case("card twice, lower case", ValueError, lambda c: {"hands": with_card(2, 1, "as")},
                 lambda c: ("hands[2][1]", "'AS'")),
    options_case("card in a hand and the draw pile", ValueError, lambda c: {"hands": HANDS, "draw_pile": ["KS"]},
                 lambda c: ("draw_pile[0]", "'KS'")),
    options_case("card in a hand and the discard pile", ValueError,
                 lambda c: {"hands": HANDS, "discard_pile": ["AD", "2S"]}, lambda c: ("discard_pile[1]", "'2S'")),
    options_case("card twice in the draw pile", ValueError, lambda c: {"hands": HANDS, "draw_pile": ["AD", "AD"]},
                 lambda c: ("draw_pile[1]", "'AD'")),
    options_case("hand too long", ValueError, lambda c: {"hands": with_hand(0, SPARE[: c.max_hand_slots + 1])},
                 lambda c: ("hands[0]", "max_hand_slots", repr(SPARE[: c.max_hand_slots + 1]))),
    # piles
    options_case("draw_pile None", TypeError, lambda c: {"hands": HANDS, "draw_pile": None},
                 lambda c: ("draw_pile", "None")),
    options_case("draw_pile str", TypeError, lambda c: {"hands": HANDS, "draw_pile": "KD"},
                 lambda c: ("draw_pile", "'KD'")),
    options_case("draw_pile int card", TypeError, lambda c: {"hands": HANDS, "draw_pile": [1]},
                 lambda c: ("draw_pile[0]", "1")),
    options_case("discard_pile dict", TypeError, lambda c: {"hands": HANDS, "discard_pile": {"AD": 1}},
                 lambda c: ("discard_pile", "{'AD': 1}")),
    options_case("discard_pile unknown", ValueError, lambda c: {"hands": HANDS, "discard_pile": ["XX"]},
                 lambda c: ("discard_pile[0]", "'XX'")),
    options_case("draw_pile without hands", ValueError, lambda c: {"draw_pile": ["AD"]},
                 lambda c: ("draw_pile", "hands", "['AD']")),
    options_case("discard_pile without hands", ValueError, lambda c: {"discard_pile": ["AD"]},
                 lambda c: ("discard_pile", "hands", "['AD']")),
    # starter
    options_case("starter None", TypeError, lambda c: {"starter": None}, lambda c: ("starter", "None")),
    options_case("starter float", TypeError, lambda c: {"starter": 1.7}, lambda c: ("starter", "1.7")),
    options_case("starter whole float", TypeError, lambda c: {"starter": 1.0}, lambda c: ("starter", "1.0")),
    options_case("starter str", TypeError, lambda c: {"starter": "1"}, lambda c: ("starter", "'1'")),
    options_case("starter bool", TypeError, lambda c: {"starter": True}, lambda c: ("starter", "True")),
    options_case("starter past the last seat", ValueError, lambda c: {"starter": NUM_PLAYERS},
                 lambda c: ("starter", repr(NUM_PLAYERS), f"0 to {NUM_PLAYERS - 1}")),
    options_case("starter negative", ValueError, lambda c: {"starter": -1}, lambda c: ("starter", "-1")),
    # scores
    options_case("scores None", TypeError, lambda c: {"scores": None}, lambda c: ("scores", "None")),
    options_case("scores str", TypeError, lambda c: {"scores": "0 0 0 0"}, lambda c: ("scores", "'0 0 0 0'")),
    options_case("scores too few", ValueError, lambda c: {"scores": [0, 0, 0]}, lambda c: ("scores", "[0, 0, 0]")),
    options_case("scores too many", ValueError, lambda c: {"scores": [0] * 5}, lambda c: ("scores", "[0, 0, 0, 0, 0]")),
    options_case("score float", TypeError, lambda c: {"scores": [10.7, 10, 10, 10]}, lambda c: ("scores[0]", "10.7")),
    options_case("score str", TypeError, lambda c: {"scores": [10, "5", 10, 10]}, lambda c: ("scores[1]", "'5'")),
    options_case("score bool", TypeError, lambda c: {"scores": [10, 10, True, 10]}, lambda c: ("scores[2]", "True")),
    options_case("score negative", ValueError, lambda c: {"scores": [0, 0, 0, -1]}, lambda c: ("scores[3]", "-1")),
    options_case("score at the target", ValueError, lambda c: {"scores": [c.target_score, 0, 0, 0]},
                 lambda c: ("scores[0]", repr(c.target_score), "target_score")),
    options_case("score far too high", ValueError, lambda c: {"scores": [0, 10**9, 0, 0]},
                 lambda c: ("scores[1]", repr(10**9))),
]


# KABOOM's deck holds the jokers (K-01): a joker is rejected only when named twice.
KABOOM_RESET_CASES = [
    options_case("joker twice", ValueError, lambda c: {"hands": with_card(3, 0, "RJ"), "draw_pile": ["RJ"]},
                 lambda c: ("draw_pile[0]", "'RJ'")),
]
# carte plays two packs with jokers: a joker and two copies of a card are valid
# there, a third copy is not; its hands have no slot bound; scores count down from
# starting_score, and a player at 0 would already be out.
SLOT_ONLY_RESET_CASES = ("card joker", "card twice in hands", "card twice, lower case",
                         "card in a hand and the draw pile", "card in a hand and the discard pile",
                         "card twice in the draw pile", "hand too long", "score at the target",
                         "score negative", "score far too high")
CARTE_RESET_CASES = [
    options_case("card three times", ValueError, lambda c: {"hands": with_card(1, 0, "AS"), "draw_pile": ["AS"]},
                 lambda c: ("draw_pile[0]", "'AS'", "has 2")),
    options_case("score negative", ValueError, lambda c: {"scores": [10, 10, 10, -1]},
                 lambda c: ("scores[3]", "-1", f"from 1 to {c.starting_score}")),
    # without a stock or a pile the round would end before its first go.
    options_case("the whole deck in hands", ValueError,
                 lambda c: {"hands": [DOUBLE_DECK[p::NUM_PLAYERS] for p in range(NUM_PLAYERS)]},
                 lambda c: ("hands", "at most 107", "got 108")),
    options_case("score zero", ValueError, lambda c: {"scores": [0, 10, 10, 10]},
                 lambda c: ("scores[0]", "0", "starting_score")),
    options_case("score above the start", ValueError, lambda c: {"scores": [10, c.starting_score + 1, 10, 10]},
                 lambda c: ("scores[1]", repr(c.starting_score + 1), "starting_score")),
]


def reset_cases():
    for ruleset in RULESETS:
        cases = RESET_CASES
        if ruleset == "kaboom_v0":
            cases = [case for case in RESET_CASES if case.label != "card joker"] + KABOOM_RESET_CASES
        if ruleset == "carte_v0":
            cases = [case for case in RESET_CASES if case.label not in SLOT_ONLY_RESET_CASES] + CARTE_RESET_CASES
        for case in cases:
            yield pytest.param(ruleset, case, id=f"{ruleset}-{case.label}")


@pytest.mark.parametrize("ruleset, case", list(reset_cases()))
@pytest.mark.parametrize("make", ["raw_env", "env"])
def test_bad_first_reset_leaves_the_env_unreset(ruleset, case, make):
    env = getattr(RULESETS[ruleset], make)()
    config = CONFIGS[ruleset]
    with pytest.raises(case.error) as err:
        env.reset(**case.arguments(config))
    assert_clear(err, case.error, *case.culprits(config))
    # Nothing was started, so step() says to reset first (PettingZoo's wrapper says so in
    # its own words) rather than failing deep inside.
    expected = RuntimeError if make == "raw_env" else AssertionError
    with pytest.raises(expected, match="reset"):
        env.step(0)
    assert_still_works(env)


def aec_bookkeeping(env) -> tuple:
    """Copies of what the AEC loop keeps besides the game."""
    return (list(env.agents), dict(env.rewards), dict(env._cumulative_rewards), dict(env.terminations),
            dict(env.truncations), {a: dict(i) for a, i in env.infos.items()})


@pytest.mark.parametrize("ruleset, case", list(reset_cases()))
def test_bad_reset_mid_game_changes_nothing(ruleset, case):
    env = RULESETS[ruleset].raw_env()
    env.reset(seed=3)
    play_random(env, 5)
    game, agent = env.game, env.agent_selection
    bookkeeping = aec_bookkeeping(env)
    observation = env.observe(agent)["observation"]
    generator_state = env._np_random.bit_generator.state
    with pytest.raises(case.error) as err:
        env.reset(**case.arguments(CONFIGS[ruleset]))
    assert_clear(err, case.error, *case.culprits(CONFIGS[ruleset]))
    assert env.game is game and env.agent_selection == agent and aec_bookkeeping(env) == bookkeeping
    assert np.array_equal(env.observe(agent)["observation"], observation)
    assert env._np_random.bit_generator.state == generator_state
    play_random(env, 5)  # the game goes on
    assert_still_works(env)


# --- actions ---------------------------------------------------------------------------------------
def an_illegal_id(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])


# (label, exception, the action made from the env, what the message must contain)
ACTION_CASES = [
    ("name", TypeError, lambda env: env.action_names[0],
     lambda env, a: ("action", repr(a), f"action_from_name({a!r})")),
    ("float", TypeError, lambda env: 13.9, lambda env, a: ("action", "13.9")),
    ("whole float", TypeError, lambda env: 2.0, lambda env, a: ("action", "2.0")),
    ("numpy float", TypeError, lambda env: np.float64(2), lambda env, a: ("action", repr(np.float64(2)))),
    ("digits", TypeError, lambda env: "13", lambda env, a: ("action", "'13'")),
    ("bool", TypeError, lambda env: True, lambda env, a: ("action", "True")),
    ("list", TypeError, lambda env: [0], lambda env, a: ("action", "[0]")),
    ("past the last id", ValueError, lambda env: env.action_space(env.agent_selection).n,
     lambda env, a: (f"illegal action {a}", "out of range", "legal actions")),
    ("far out of range", ValueError, lambda env: 10**6, lambda env, a: (f"illegal action {a}", "out of range")),
    ("negative", ValueError, lambda env: -1, lambda env, a: ("illegal action -1", "out of range")),
    ("illegal now", ValueError, an_illegal_id, lambda env, a: (f"illegal action {a}", "legal actions")),
    ("None for a live agent", ValueError, lambda env: None, lambda env, a: (env.agent_selection, "None")),
]


def action_cases():
    for ruleset in RULESETS:
        for label, error, action, culprits in ACTION_CASES:
            yield pytest.param(ruleset, error, action, culprits, id=f"{ruleset}-{label}")


@pytest.mark.parametrize("ruleset, error, make_action, culprits", list(action_cases()))
def test_bad_action_changes_nothing(ruleset, error, make_action, culprits):
    env = RULESETS[ruleset].raw_env()
    env.reset(seed=4)
    play_random(env, 3)
    version, agent = env.game.version, env.agent_selection
    action = make_action(env)
    with pytest.raises(error) as err:
        env.step(action)
    assert_clear(err, error, *culprits(env, action))
    assert env.game.version is version and env.agent_selection == agent
    play_random(env, 5)
    assert_still_works(env)


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("call", ["step", "last", "observe"])
def test_calls_before_reset_say_to_reset(ruleset, call):
    env = RULESETS[ruleset].raw_env()
    with pytest.raises(RuntimeError) as err:
        {"step": lambda: env.step(0), "last": env.last, "observe": lambda: env.observe("player_0")}[call]()
    assert_clear(err, RuntimeError, f"{call}()", "reset()")
    assert_still_works(env)


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("make", ["raw_env", "env"])
@pytest.mark.parametrize("call", ["step", "last"])
def test_calls_after_the_game_is_over_say_to_reset(ruleset, make, call):
    env = getattr(RULESETS[ruleset], make)(single_round=True, max_turns_per_round=6)
    env.reset(seed=5)
    finish_game(env)
    assert env.agents == []
    with pytest.raises(RuntimeError) as err:
        env.step(None) if call == "step" else env.last()
    assert_clear(err, RuntimeError, f"{call}()", "game is over", "reset()")
    assert_still_works(env)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_done_agent_takes_only_none(ruleset):
    env = RULESETS[ruleset].raw_env(single_round=True, max_turns_per_round=6)
    env.reset(seed=5)
    chooser = np.random.default_rng(0)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(chooser.choice(np.flatnonzero(mask))))
    with pytest.raises(ValueError, match="None"):
        env.step(0)
    finish_game(env)
    assert_still_works(env)


# --- cards --------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [5, None, 1.5, ["AS"]])
def test_parse_card_rejects_non_strings_by_name(bad):
    with pytest.raises(TypeError) as err:
        parse_card(bad)
    assert_clear(err, TypeError, repr(bad), "card name")


def test_parse_cards_rejects_a_non_iterable():
    with pytest.raises(TypeError) as err:
        parse_cards(None)
    assert_clear(err, TypeError, "None", "card names")


# --- what is accepted, and normalised --------------------------------------------------------------
# carte's version (starting_score, no slots) is in tests/test_carte_env.py.
@pytest.mark.parametrize("ruleset", SLOT_RULESETS)
def test_numpy_integers_and_bools_are_accepted_and_normalised(ruleset):
    extra = {"power_on_replace": np.bool_(False)} if ruleset == "cut_v0" else {}
    env = RULESETS[ruleset].raw_env(
        num_players=np.int64(3), max_hand_slots=np.int32(9), target_score=np.int16(90),
        max_turns_per_round=np.uint8(50), max_rounds=np.int64(7), recent_events=np.int64(5),
        single_round=np.bool_(True), memory=np.str_("none"), render_omniscient=np.bool_(True),
        reward_scale=np.float32(0.5), **extra,
    )
    config = env.config
    for name in ("num_players", "max_hand_slots", "target_score", "max_turns_per_round", "max_rounds",
                 "recent_events"):
        assert type(getattr(config, name)) is int, name
    assert (config.num_players, config.max_hand_slots, config.target_score) == (3, 9, 90)
    assert config.single_round is True and env.render_omniscient is True
    assert type(config.memory) is str and config.memory == "none"
    assert type(env.reward_scale) is float and env.reward_scale == 0.5
    if ruleset == "cut_v0":
        assert config.power_on_replace is False
    assert env.config == RULESETS[ruleset].raw_env(
        num_players=3, max_hand_slots=9, target_score=90, max_turns_per_round=50, max_rounds=7, recent_events=5,
        single_round=True, memory="none", **{k: bool(v) for k, v in extra.items()}).config
    env.reset(seed=np.int64(0), options={"hands": tuple(tuple(h) for h in HANDS[:3]), "starter": np.int64(2),
                                         "scores": [np.int64(5), 0, np.int32(89)],
                                         "draw_pile": (np.str_("AD"),)})
    assert env.game.current_player == 2 and type(env.game.starter) is int
    assert env.game.scores == [5, 0, 89] and all(type(s) is int for s in env.game.scores)
    play_random(env, 20)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_numpy_seed_equals_int_seed(ruleset):
    first, second = RULESETS[ruleset].raw_env(), RULESETS[ruleset].raw_env()
    first.reset(seed=np.int64(11))
    second.reset(seed=11)
    assert np.array_equal(first.observe(first.agent_selection)["observation"],
                          second.observe(second.agent_selection)["observation"])


@pytest.mark.parametrize("ruleset", SLOT_RULESETS)
@pytest.mark.parametrize("num_players", [3, 6])
def test_every_valid_start_keeps_observations_in_their_space(ruleset, num_players):
    """Starting scores just below the target (the highest valid) plus a worst round must
    stay inside the ``scores`` bound; play whole games and check every observation."""
    env = RULESETS[ruleset].raw_env(num_players=num_players)
    target = env.config.target_score
    starts = [[target - 1] * num_players, [0] * num_players, [target - 1] + [0] * (num_players - 1)]
    chooser = np.random.default_rng(0)
    for seed, scores in enumerate(starts):
        env.reset(seed=seed, options={"scores": scores})
        while env.agents:
            for agent in env.agents:
                assert env.observation_space(agent).contains(env.observe(agent))
            assert env.state_space.contains(env.state())
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(chooser.choice(np.flatnonzero(observation["action_mask"]))))


# --- the validation table of a config ----------------------------------------------------------------
@dataclass(frozen=True)
class ExampleConfig(CutConfig):
    """A ruleset config that adds fields: validated by declaring them, no code copied."""

    swaps_per_turn: int = 1
    jokers_wild: bool = False
    bonus_weight: float = 0.5

    @classmethod
    def option_checks(cls):
        return {**super().option_checks(), "swaps_per_turn": lambda name, value: validation.integer(name, value, 0, 3)}


@pytest.mark.parametrize("option, value, error", [
    ("swaps_per_turn", 4, ValueError),
    ("swaps_per_turn", "1", TypeError),
    ("jokers_wild", "no", TypeError),
    ("bonus_weight", math.nan, ValueError),
    ("bonus_weight", "0.5", TypeError),
    ("num_players", 7, ValueError),
    ("power_on_replace", None, TypeError),
])
def test_a_new_config_is_validated_from_its_declared_fields(option, value, error):
    with pytest.raises(error) as err:
        ExampleConfig(**{option: value})
    assert_clear(err, error, option, repr(value))
    config = ExampleConfig(swaps_per_turn=np.int64(2), jokers_wild=np.bool_(True), bonus_weight=np.float32(0.25))
    assert (type(config.swaps_per_turn), type(config.jokers_wild), type(config.bonus_weight)) == (int, bool, float)


def test_a_field_of_an_unknown_type_needs_a_declared_check():
    @dataclass(frozen=True)
    class Unchecked(SlotGameConfig):
        weights: tuple = ()

    with pytest.raises(TypeError, match="Unchecked.weights.*option_checks"):
        Unchecked()



# --- the observer behind an env (the raw engine's observation into a reused buffer) -------------
@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("seat, error", [(-1, ValueError), (4, ValueError), (None, TypeError), (1.0, TypeError),
                                         (True, TypeError), ("0", TypeError)])
def test_observer_rejects_a_bad_seat_by_name(ruleset, seat, error):
    env = RULESETS[ruleset].raw_env(num_players=4)
    env.reset(seed=0)
    with pytest.raises(error) as err:
        env.observer.observe(env.game, seat)
    assert_clear(err, error, "observer", repr(seat), "0 to 3")


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("make_out, error, culprit", [
    (lambda size: np.zeros(size, dtype=np.float64), ValueError, "float64"),
    (lambda size: np.zeros(size + 1, dtype=np.float32), ValueError, "shape"),
    (lambda size: np.zeros(size, dtype=np.int32), ValueError, "int32"),
    (lambda size: np.zeros(2 * size, dtype=np.float32)[::2], ValueError, "not contiguous"),
    (lambda size: np.zeros(size, dtype=np.float32)[None], ValueError, "shape (1, "),
    (lambda size: [0.0] * size, TypeError, "(list)"),
])
def test_observer_rejects_a_buffer_it_cannot_fill(ruleset, make_out, error, culprit):
    """Every ruleset takes the same buffers (float32 vectors of the observation's size),
    says which it took as bad, and fills a good one exactly as it builds a new one."""
    env = RULESETS[ruleset].raw_env()
    env.reset(seed=0)
    observer, game = env.observer, env.game
    with pytest.raises(error) as err:
        observer.observe(game, 0, make_out(observer.size))
    assert_clear(err, error, "out", "float32", culprit)
    read_only = observer.new_buffer()
    read_only.flags.writeable = False
    with pytest.raises(ValueError) as err:
        observer.observe(game, 0, read_only)
    assert_clear(err, ValueError, "read-only")
    with pytest.raises(ValueError) as err:
        observer.encode_state(game, np.zeros(observer.state_layout.size + 1, dtype=np.float32))
    assert_clear(err, ValueError, "out", "float32", "shape")
    for seat in (0, np.int64(1)):
        out = observer.new_buffer()
        assert observer.observe(game, seat, out) is out
        np.testing.assert_array_equal(out, observer.observe(game, int(seat)))


@pytest.mark.parametrize("ruleset", SLOT_RULESETS)
def test_observer_refuses_a_hand_longer_than_max_hand_slots_set_by_hand(ruleset):
    """A hand grown past max_hand_slots behind the engine's back (the compiled loop has
    no place for it) is one clear error, never a write past the slot pieces."""
    env = RULESETS[ruleset].raw_env()
    env.reset(seed=0)
    game = env.game
    game.table.hands[1] += [-1] * (game.config.max_hand_slots + 1 - len(game.table.hands[1]))
    with pytest.raises(ValueError, match="max_hand_slots"):
        env.observer.observe(game, 0, env.observer.new_buffer())


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("make", ["raw_env", "env"])
@pytest.mark.parametrize("call", ["observe", "observation_space", "action_space"])
@pytest.mark.parametrize("agent", ["player_9", 0, ["player_0"]])
def test_an_unknown_agent_is_named_with_the_agents(ruleset, make, call, agent):
    """A KeyError, as PettingZoo's dicts of agents raise, but one that says which agents exist."""
    env = getattr(RULESETS[ruleset], make)(num_players=3)
    env.reset(seed=0)
    with pytest.raises(KeyError) as err:
        getattr(env, call)(agent)
    assert_clear(err, UnknownAgentError, repr(agent), "player_0, player_1, player_2")
    assert getattr(env, call)("player_2") is not None


# --- the engine behind an env (env.unwrapped.game) and the names and layouts -------------------
@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("action", [1.0, "1", True, None, [1]])
def test_the_engine_takes_only_integer_actions(ruleset, action):
    """Never rounded, parsed or looked up: a float or a name is a TypeError, and the
    game is unchanged."""
    env = RULESETS[ruleset].raw_env()
    env.reset(seed=0)
    game = env.game
    before = game.clone()
    for call in (game.apply, game.is_legal):
        with pytest.raises(TypeError) as err:
            call(action)
        assert_clear(err, TypeError, "action", repr(action), "integer")
    assert game.legal_actions() == before.legal_actions() and game.events == before.events
    legal = game.legal_actions()[0]
    assert game.is_legal(np.int64(legal))
    game.apply(np.int64(legal))  # numpy integers are integers


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("action, error", [(-1, ValueError), (10_000, ValueError), ("3", TypeError),
                                           (2.0, TypeError)])
def test_action_name_rejects_what_is_not_an_action_id(ruleset, action, error):
    """-1 is not the last action's id, and "3" is not action 3."""
    env = RULESETS[ruleset].raw_env()
    with pytest.raises(error) as err:
        env.action_name(action)
    assert_clear(err, error, "action", repr(action), f"0 to {len(env.action_names) - 1}")
    assert env.action_name(np.int64(0)) == env.action_names[0]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_engine_seats_are_checked_by_name(ruleset):
    env = RULESETS[ruleset].raw_env(num_players=3)
    env.reset(seed=0)
    game = env.game
    calls = {
        "viewer": [lambda seat: game.render_text(seat), lambda seat: game.describe_events(seat)],
        "observer": [lambda seat: game.sample_world(seat, np.random.default_rng(0))],
        "player": [lambda seat: game.hand_total(seat)],
    }
    for name, functions in calls.items():
        for function in functions:
            for seat, error in ((3, ValueError), (-1, ValueError), (1.0, TypeError), ("0", TypeError)):
                with pytest.raises(error) as err:
                    function(seat)
                assert_clear(err, error, name, repr(seat), "0 to 2")
            function(np.int64(2))
    assert game.render_text(None) and game.describe_events(None) == game.describe_events(None, len(game.events))
    assert game.describe_events(0, 0) == [] and len(game.describe_events(0, 1)) == 1
    with pytest.raises(TypeError) as err:
        game.sample_world(0, 7)
    assert_clear(err, TypeError, "rng", "Generator", "7 (int)")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_pieces_of_a_vector_of_another_size_are_refused(ruleset):
    env = RULESETS[ruleset].raw_env()
    env.reset(seed=0)
    size = env.observer.size
    for pieces in (env.observation_pieces, env.state_pieces):
        with pytest.raises(ValueError) as err:
            pieces(np.zeros(3, dtype=np.float32))
        assert_clear(err, ValueError, "(3,)", "shape")
        with pytest.raises(TypeError) as err:
            pieces([0.0] * size)
        assert_clear(err, TypeError, "numpy array", "list")
    observation = env.observe(env.agent_selection)["observation"]
    assert set(env.observation_pieces(observation)) == set(env.observer.layout.pieces)
