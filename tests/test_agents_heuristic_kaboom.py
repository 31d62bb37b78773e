"""The KABOOM heuristic's decisions on stacked decks: it snaps only what it knows
qualifies (K-11), uses each power sensibly (K-03 … K-08) and calls under K-16. That it
reads no hidden card (the same decisions on resampled worlds) is checked for every
heuristic in tests/test_heuristics_read_no_hidden_card.py."""

from __future__ import annotations

import numpy as np

from cardenv.agents import make_agent, make_raw_env, ruleset_info


def _setup(options, seed=0, **env_kwargs):
    env_kwargs.setdefault("num_players", len(options["hands"]))
    info = ruleset_info("kaboom_v0", **env_kwargs)
    env = make_raw_env("kaboom_v0", **env_kwargs)
    env.reset(seed=seed, options=options)
    agent = make_agent("heuristic", info, np.random.default_rng(seed))
    agent.reset()
    return info, env, agent


def _act(env, agent):
    seat = env.game.current_player
    return agent.act(env.observe(env.possible_agents[seat]), env.game, seat)


def _step(env, *names):
    for name in names:
        env.step(env.action_from_name(name))


def _names(env, agent, steps: int) -> list[str]:
    """The agent's next ``steps`` decisions, each applied."""
    names = []
    for _ in range(steps):
        action = _act(env, agent)
        names.append(env.action_name(action))
        env.step(action)
    return names


def test_snaps_a_known_qualifying_card_and_nothing_it_has_not_seen():
    # player_0 knows slots 2, 3: 9S in slot 3 qualifies on 9H; 9C in slot 0 (unseen) too.
    hands = [["9C", "3S", "4S", "9S"], ["2H", "3H", "4H", "5H"]]
    info, env, agent = _setup({"hands": hands, "draw_pile": ["9H"], "starter": 1})
    _step(env, "draw", "discard drawn", "decline power", "pass")
    assert _names(env, agent, 2) == ["snap select own slot 3", "snap confirm"]


def test_does_not_snap_same_colour_or_a_red_king():
    hands = [["2S", "3S", "KD", "9D"], ["2H", "3H", "4H", "5H"]]
    info, env, agent = _setup({"hands": hands, "draw_pile": ["9H"], "starter": 1})
    _step(env, "draw", "discard drawn", "decline power", "pass")
    assert _names(env, agent, 1) == ["pass"]  # 9D on 9H: same colour
    info, env, agent = _setup({"hands": hands, "draw_pile": ["KS"], "starter": 1})
    _step(env, "draw", "discard drawn", "decline power", "pass")
    assert _names(env, agent, 1) == ["pass"]  # KD would qualify but is worth −2


def test_replaces_its_highest_known_card_with_a_low_draw_and_discards_a_high_one():
    hands = [["2S", "3S", "QD", "AS"], ["2H", "3H", "4H", "5H"]]
    info, env, agent = _setup({"hands": hands, "draw_pile": ["AH", "2D", "QH"], "starter": 0})
    assert _names(env, agent, 2) == ["draw", "put drawn into slot 2"]


def test_powers_look_at_unknown_cards_and_the_black_king_takes_a_low_card():
    middling = [["2S", "3S", "8D", "5D"], ["AH", "3H", "4H", "5H"]]
    info, env, agent = _setup({"hands": middling, "draw_pile": ["8S"], "starter": 0})
    assert _names(env, agent, 3) == ["draw", "discard drawn", "7/8: look at own slot 0"]
    hands = [["2S", "3S", "QD", "JD"], ["AH", "3H", "4H", "5H"]]
    info, env, agent = _setup({"hands": hands, "draw_pile": ["KS"], "starter": 0})
    assert _names(env, agent, 3) == ["draw", "discard drawn", "black K: look at player +1 slot 0"]
    # It saw the ace: it takes it, giving its highest known card (the Queen in slot 2).
    assert _names(env, agent, 1) == ["black K: take it, giving own slot 2"]
    assert env.game.card_name(env.game.table.hands[0][2]) == "AH"


def test_black_king_gives_a_high_card_to_a_third_player_and_leaves_a_middling_one():
    hands = [["2S", "3S", "AD", "2D"], ["KC", "3H", "4H", "5H"], ["2C", "3C", "4C", "5C"]]
    info, env, agent = _setup({"hands": hands, "draw_pile": ["KS"], "starter": 0})
    _step(env, "draw", "discard drawn", "black K: look at player +1 slot 0")
    assert _names(env, agent, 1)[0].startswith("black K: give it to player +2")
    hands[1][0] = "5D"
    info, env, agent = _setup({"hands": hands, "draw_pile": ["KS"], "starter": 0})
    _step(env, "draw", "discard drawn", "black K: look at player +1 slot 0")
    assert _names(env, agent, 1) == ["black K: leave it"]


def test_jack_gives_away_its_highest_known_card():
    hands = [["2S", "3S", "QD", "AS"], ["AH", "3H", "4H", "5H"]]
    info, env, agent = _setup({"hands": hands, "draw_pile": ["JS"], "starter": 0})
    names = _names(env, agent, 4)
    assert names[:3] == ["draw", "discard drawn", "J/Q: own slot 2"]


def test_calls_kaboom_with_a_low_known_hand_and_not_with_a_high_one():
    low = [["AS", "KH"], ["KS", "QS", "JS", "10S"], ["KC", "QC", "JC", "10C"]]
    info, env, agent = _setup({"hands": [["KH", "AS", "AD", "KD"]] + low[1:], "starter": 0})
    state = env.game
    state.table.knowledge.reveal(0, state.table.hands[0][:2])  # as if looked at with 7s
    state.mark_changed()
    assert _names(env, agent, 1) == ["call KABOOM"]
    info, env, agent = _setup({"hands": [["2S", "3S", "QD", "QH"]] + low[1:], "starter": 0})
    assert _names(env, agent, 1) == ["draw"]
