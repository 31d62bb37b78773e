"""carte_v0 as a PettingZoo environment: the API tests for 2, 4 and 6 players, seeding,
the global state, what observations show and hide (own hand as counts, melds, the pile
card everyone saw taken, private selections, catch windows), information-set sampling,
eliminations and rewards, rendering, and planted leaks the pair check must catch."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state as pettingzoo_state_test

from cardenv import carte_v0
from cardenv.core.melds import JOKER, MELD_TYPE_NAMES
from cardenv.games.carte import CarteConfig, CarteObserver, CarteState, Phase
from cardenv.testing import LeakPairStats, check_leak_pairs, check_no_leak
from tests.conftest import play as act
from tests.oracles import CarteOracle

COPIES = np.array([2.0] * JOKER + [4.0])


def counts(piece: np.ndarray) -> dict[str, int]:
    values = np.rint(piece * COPIES).astype(int)
    return {MELD_TYPE_NAMES[t]: int(values[t]) for t in np.flatnonzero(values)}


# --- PettingZoo's own tests ------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_api(num_players):
    api_test(carte_v0.env(num_players=num_players, max_turns_per_round=40), num_cycles=300)


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_seed(num_players):
    seed_test(lambda: carte_v0.env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_state(num_players):
    pettingzoo_state_test(carte_v0.env(num_players=num_players), num_cycles=200)


def test_the_same_seed_and_actions_give_the_same_game():
    """Determinism: reset(seed) and the same actions replay the game exactly."""
    traces = []
    for _ in range(2):
        env = carte_v0.raw_env(num_players=3)
        env.reset(seed=21)
        rng = np.random.default_rng(4)
        trace = []
        for _ in range(400):
            if not env.agents:
                break
            obs, reward, terminated, truncated, _ = env.last()
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            trace.append((env.agent_selection, reward, obs["observation"].tobytes()))
            env.step(action)
        traces.append(trace)
    assert traces[0] == traces[1]


# --- the global state and the observation ------------------------------------------------------
def test_state_shows_every_card_where_it_lies():
    env = carte_v0.raw_env(num_players=3)
    env.reset(seed=4)
    rng = np.random.default_rng(2)
    for _ in range(300):
        if not env.agents:
            break
        game = env.game
        vector = env.state()
        assert env.state_space.contains(vector)
        pieces = env.state_pieces(vector)
        for p in range(3):
            expected = {}
            for c in game.table.hands[p]:
                expected[game.meld_name(c)] = expected.get(game.meld_name(c), 0) + 1
            assert counts(pieces["hands"][p]) == expected
        stock = [game.meld_name(c) for c in game.table.draw_pile[::-1]]
        codes = np.rint(pieces["stock_order"] * 53).astype(int)
        assert [MELD_TYPE_NAMES[c - 1] for c in codes[: len(stock)]] == stock
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_observation_shows_own_hand_as_counts_and_the_pile_card_taken_to_everyone():
    """R-05: a card taken from the pile is known to everyone to be in that hand; a stock
    draw is seen by the drawer only; the selection is private (R-06)."""
    env = carte_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"hands": [["5H", "6H", "7H", "9C"], ["KS", "KH", "AD"], ["2D", "3D", "4C"]],
                               "draw_pile": ["3S", "5S"], "discard_pile": ["8S"], "starter": 0})
    pieces = env.observation_pieces
    mine = pieces(env.observe("player_0")["observation"])
    assert counts(mine["hand"]) == {"5H": 1, "6H": 1, "7H": 1, "9C": 1}
    game = env.game
    act(game, "draw pile")
    seen_by_1 = pieces(env.observe("player_1")["observation"])
    assert counts(seen_by_1["known_cards"][2]) == {"8S": 1}  # player_0 is 2 seats on from player_1
    before = env.observe("player_1")["observation"]
    act(game, "select 5H", "select 6H")
    assert np.array_equal(env.observe("player_1")["observation"], before)  # selections are private
    assert counts(pieces(env.observe("player_0")["observation"])["selection"]) == {"5H": 1, "6H": 1}
    act(game, "select 7H", "put down")
    seen_by_2 = pieces(env.observe("player_2")["observation"])
    assert seen_by_2["meld_present"][0] == 1 and seen_by_2["meld_is_run"][0] == 1
    assert seen_by_2["meld_owner"][0, 1] == 1  # player_0 is one seat on from player_2
    assert np.flatnonzero(seen_by_2["meld_run_real"][0]).tolist() == [3, 4, 5]  # 5, 6, 7
    assert counts(seen_by_2["meld_accepts"] / COPIES) == {"4H": 1, "8H": 1, "JK": 1}


def test_a_catch_window_shows_no_pending_decision():
    """R-14: the other players decide in turn; no observation shows an earlier decision
    before the window closes."""
    env = carte_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"hands": [["5H", "6H", "7H", "2C"], ["8S", "JS"], ["3D", "10S"]],
                               "draw_pile": ["3S", "9S", "10C", "AD"], "starter": 0})
    act(env.game, "draw stock", "select 5H", "select 6H", "select 7H", "put down", "discard 2C")
    assert env.game.phase == Phase.CATCH
    views = {}
    for decision in ("catch", "no catch"):
        state = env.game.clone()
        act(state, decision)
        views[decision] = env.observer.observe(state, 2)
    assert np.array_equal(views["catch"], views["no catch"])


def test_information_set_sampling_keeps_what_the_seat_knows():
    """sample_world deals only unknown cards: the pile card taken stays in its hand, the
    melds, pile and the seat's own hand stay; hidden hands and the stock change."""
    state = CarteState(CarteConfig(num_players=3), np.random.default_rng(1),
                       {"hands": [["5H", "6H", "7H", "9C"], ["KS", "KH", "AD"], ["2D", "3D", "4C"]],
                        "discard_pile": ["8S"], "starter": 0})
    act(state, "draw pile", "select 5H", "select 6H", "select 7H", "put down", "discard 9C")
    taken = [c for c in state.table.hands[0] if state.meld_name(c) == "8S"]
    rng = np.random.default_rng(0)
    changed = 0
    for _ in range(10):
        world = state.sample_world(1, rng)
        assert world.meld_name(taken[0]) == "8S"
        assert [world.meld_name(c) for c in world.table.hands[1]] == [state.meld_name(c) for c in state.table.hands[1]]
        assert [world.meld_name(c) for c in world.table.melds[0]] == ["5H", "6H", "7H"]
        changed += [world.meld_name(c) for c in world.table.hands[2]] != ["2D", "3D", "4C"]
        world.table.check_every_card_once()
    assert changed >= 8  # a sample is not the true state


@pytest.mark.parametrize("memory", ["perfect", "none"])
def test_resampling_changes_no_observation_or_mask(memory):
    config = CarteConfig(num_players=4, memory=memory)
    observer = CarteObserver(config)
    rng = np.random.default_rng(3)
    state = CarteState(config, np.random.default_rng(3))
    for step in range(400):
        if state.is_terminal:
            break
        if step % 7 == 0:
            for seat in range(4):
                check_no_leak(state, observer.observe, seat, rng, samples=2)
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])


# --- eliminations and rewards ----------------------------------------------------------------
@pytest.mark.parametrize("eliminated_agents", ["stay", "remove"])
def test_an_eliminated_player_leaves_and_the_others_play_on(eliminated_agents):
    """R-17: a player at 0 or below is out; the game goes on with the others (R-18). Its
    agent stays, never selected again, or (``"remove"``) is terminated, steps once with
    None and is removed."""
    env = carte_v0.raw_env(num_players=3, eliminated_agents=eliminated_agents)
    env.reset(seed=0, options={"hands": [["5H", "6H", "7H", "9C"], ["KS", "KH", "AD"], ["2D", "3D", "4C"]],
                               "draw_pile": ["3S", "5S", "6S", "8H"], "starter": 0, "scores": [100, 80, 2]})
    for name in ("draw stock", "select 5H", "select 6H", "select 7H", "put down", "say carte", "discard 9C",
                 "draw stock", "discard KS", "draw stock", "discard 2D", "draw stock", "select 8H", "add to meld 0",
                 "discard 3S"):
        env.step(env.action_from_name(name))
    assert env.game.eliminated == [False, False, True] and not env.game.is_terminal
    assert env.rewards["player_2"] == pytest.approx(-0.13)  # lost 3D 4C 6S = 13 points, scaled by 0.01
    assert env.rewards["player_1"] == pytest.approx(-0.30)  # KH AD 5S
    if eliminated_agents == "remove":
        assert env.agent_selection == "player_2" and env.terminations["player_2"]
        env.step(None)
        assert env.agents == ["player_0", "player_1"]
    else:
        assert env.agent_selection != "player_2" and not env.terminations["player_2"]
        assert env.agents == ["player_0", "player_1", "player_2"]
        assert env._cumulative_rewards["player_2"] == pytest.approx(-0.13)  # what last() gives it at the end
    assert env.game.table.hands[2] == []  # not dealt in again


def test_outcome_rewards():
    env = carte_v0.raw_env(num_players=2, reward_mode="outcome", single_round=True)
    env.reset(seed=0, options={"hands": [["5H", "6H", "7H", "9C"], ["KS", "QD", "JC", "2D", "4D"]],
                               "draw_pile": ["3S", "9S", "8H"], "starter": 0})
    for name in ("draw stock", "select 5H", "select 6H", "select 7H", "put down", "say carte", "discard 9C",
                 "draw stock", "discard 9S", "draw stock", "select 8H", "add to meld 0", "discard 3S"):
        env.step(env.action_from_name(name))
    assert env.game.is_terminal
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}


# --- options, rendering --------------------------------------------------------------------------
def test_numpy_options_are_normalised_and_extreme_scores_stay_in_the_space():
    env = carte_v0.raw_env(num_players=np.int64(3), starting_score=np.int32(50), max_turns_per_round=np.uint8(30),
                           single_round=np.bool_(False), memory=np.str_("none"))
    assert (type(env.config.num_players), type(env.config.starting_score)) == (int, int)
    assert env.config.memory == "none" and type(env.config.memory) is str
    rng = np.random.default_rng(0)
    for scores in ([1, 1, 1], [50, 50, 50]):
        env.reset(seed=1, options={"scores": scores})
        while env.agents:
            for agent in env.agents:
                assert env.observation_space(agent).contains(env.observe(agent))
            assert env.state_space.contains(env.state())
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_render_shows_the_viewers_cards_only():
    env = carte_v0.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=0, options={"hands": [["5H", "6H", "7H", "RJ"], ["KS", "KH", "AD"]], "starter": 0})
    text = env.render()
    assert "5H 6H 7H JK" in text and "KS" not in text and "?? ?? ??" in text
    omniscient = carte_v0.raw_env(num_players=2, render_mode="ansi", render_omniscient=True)
    omniscient.reset(seed=0, options={"hands": [["5H", "6H", "7H", "RJ"], ["KS", "KH", "AD"]], "starter": 0})
    assert "AD KS KH" in omniscient.render()


def test_action_table_is_stable_and_named():
    env = carte_v0.raw_env()
    names = env.action_names
    assert len(names) == len(set(names)) == 148
    assert names[:3] == ["draw stock", "draw pile", "select AS"]
    assert "select JK" in names and "discard 10H" in names and "add to meld 35" in names
    assert names[-3:] == ["say carte", "catch", "no catch"]


# --- planted leaks: the pair check must catch each -------------------------------------------------
PAIRS, DECISION_PAIRS = 20, 10  # per seat


def carte_pairs(num_players=3, seed=1) -> LeakPairStats:
    """The pair check for every seat; what it compared, added up."""
    config = CarteConfig(num_players=num_players)

    def new_state(options, engine_seed):
        return CarteState(config, np.random.default_rng(engine_seed), options)

    total = LeakPairStats()
    for seat in range(num_players):
        total += check_leak_pairs(new_state, CarteObserver(config), CarteOracle(), seat,
                                  np.random.default_rng(seed + seat), pairs=PAIRS, decision_pairs=DECISION_PAIRS)
    return total


def test_the_pair_check_finds_no_leak_in_carte():
    stats = carte_pairs()
    # A check that compared nothing cannot fail. Measured (3 players, seeds 1-3): 1,860
    # compared steps, 599 masks, 16 decision pairs, 34 steps in catch windows.
    seats = 3
    assert stats.identity_pairs == PAIRS * seats, stats
    assert stats.compared_steps >= 12 * PAIRS * seats, stats
    assert stats.compared_masks >= 2 * PAIRS * seats, stats
    assert stats.ended["seat may know a differing card"] >= PAIRS * seats // 12, stats
    # Catch windows open only when a go ends on one card without carte: rarer.
    assert stats.decision_pairs >= 0.4 * DECISION_PAIRS * seats, stats
    assert stats.ended["window complete"] >= 0.4 * DECISION_PAIRS * seats, stats
    assert stats.window_steps >= PAIRS * seats // 3, stats


def test_planted_leak_next_stock_card_is_caught(monkeypatch):
    original = CarteObserver.observe

    def with_next_card(self, state, observer, out=None):
        buffer = original(self, state, observer, out)
        if state.table.draw_pile:
            next_type = int(state.table.card_types[state.table.draw_pile[-1]])
            buffer[self.layout.pieces["stock_size"].start] += next_type / 1000
        return buffer

    monkeypatch.setattr(CarteObserver, "observe", with_next_card)
    with pytest.raises(AssertionError, match="LEAK"):
        carte_pairs()


def test_planted_leak_stock_draw_seen_by_everyone_is_caught(monkeypatch):
    """A wrong knowledge-table entry: R-05, a stock draw is seen by its drawer only."""
    original = CarteState._draw_stock

    def draw_for_all(self, p):
        original(self, p)
        self.table.knowledge.reveal_to_all(self.table.hands[p][-1])

    monkeypatch.setattr(CarteState, "_draw_stock", draw_for_all)
    with pytest.raises(AssertionError, match="LEAK"):
        carte_pairs()


def test_planted_leak_pending_catch_decision_is_caught(monkeypatch):
    """R-14: a decision shown before the window closes is a leak."""
    original = CarteObserver.observe

    def showing_catches(self, state, observer, out=None):
        buffer = original(self, state, observer, out)
        window = state.window
        if window is not None and window.attempts():
            buffer[self.layout.pieces["catch_window"].start] = 0.5
        return buffer

    monkeypatch.setattr(CarteObserver, "observe", showing_catches)
    with pytest.raises(AssertionError, match="decision pair"):
        carte_pairs()


def test_worked_example_in_the_docs_holds():
    """docs/carte.md's worked example, step by step (R-06, R-08, R-13, R-16)."""
    env = carte_v0.raw_env(num_players=2, single_round=True)
    env.reset(seed=0, options={"hands": [["5H", "6H", "7H", "9C"], ["KS", "QD", "JC", "2D", "4D"]],
                               "draw_pile": ["3S", "9S", "8H"], "starter": 0})
    game = env.game
    for name in ("draw stock", "select 5H", "select 6H", "select 7H", "put down", "say carte", "discard 9C"):
        env.step(env.action_from_name(name))
    assert game.describe_meld(0) == "5H 6H 7H" and game.started[0]
    assert game.phase == Phase.DRAW and game.current_player == 1  # no catch window
    for name in ("draw stock", "discard 9S", "draw stock", "select 8H", "add to meld 0"):
        env.step(env.action_from_name(name))
    assert game.describe_meld(0) == "5H 6H 7H 8H"
    env.step(env.action_from_name("discard 3S"))
    assert game.is_terminal and game.round_results[0].reason == "player_0 went out"
    assert game.scores == [100, 64] and game.winners() == [0]
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": pytest.approx(-0.36)}
