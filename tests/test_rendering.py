"""The drawn table: ``render_mode="rgb_array"`` and ``"human"`` on every ruleset's AEC env,
parallel env and single-seat view; frames of one fixed size that depend on the viewer's
view alone (leak pairs: two games that differ only in what the viewer cannot know draw the
same frames); a regression figure per ruleset; a video of an episode with Gymnasium's
RecordVideo.

The frame figures of ``FRAME_FIGURES`` are made again after a deliberate change to the
drawing by ``python -m tests.test_rendering``; a change that was not meant to change the
drawing leaves them alone.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import cardenv
from cardenv.drawing.frame import FRAME_SIZE, draw_frame
from cardenv.rulesets import ruleset_names
from cardenv.testing import check_leak_pairs
from cardenv.train import SingleSeatEnv
from tests.test_leak_pairs import RULESETS, rarely_ending

FRAME_SHAPE = (FRAME_SIZE[1], FRAME_SIZE[0], 3)
FRAME_FIGURES = Path(__file__).with_name("data") / "frame_figures.json"


def _play(env, steps: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            return
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_rgb_array_frames_have_one_size_and_follow_the_game(ruleset):
    """The documented mode list and size; the same state draws the same frame, a step draws
    another; the omniscient view shows cards the player to act does not see."""
    module = getattr(cardenv, ruleset)
    env = module.env(render_mode="rgb_array")
    assert env.metadata["render_modes"] == ["ansi", "human", "rgb_array"] and env.metadata["render_fps"] > 0
    env.reset(seed=2)
    first = env.render()
    assert first.shape == FRAME_SHAPE and first.dtype == np.uint8
    np.testing.assert_array_equal(env.render(), first)
    _play(env, 6)
    assert not np.array_equal(env.render(), first)
    omniscient = module.env(render_mode="rgb_array", render_omniscient=True)
    omniscient.reset(seed=2)
    assert not np.array_equal(omniscient.render(), first)
    config_class = RULESETS[ruleset][0]
    for players in (config_class.min_players, config_class.max_players):
        other = module.env(render_mode="rgb_array", num_players=players)
        other.reset(seed=0)
        assert other.render().shape == FRAME_SHAPE


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_the_parallel_env_and_the_single_seat_view_draw_the_same_table(ruleset):
    module = getattr(cardenv, ruleset)
    parallel = module.parallel_env(render_mode="rgb_array")
    parallel.reset(seed=4)
    aec = module.env(render_mode="rgb_array")
    aec.reset(seed=4)
    np.testing.assert_array_equal(parallel.render(), aec.render())
    view = SingleSeatEnv(ruleset, opponents="heuristic", seat=1, render_mode="rgb_array")
    view.reset(seed=0)
    frame = view.render()
    game = view.env.game
    np.testing.assert_array_equal(frame, draw_frame(game.table_view(1, game.config.memory, 16)))


def test_frames_are_drawn_after_pygame_quits_and_starts_again():
    """Another env's close() may quit pygame (PettingZoo's classic games do): the fonts are
    loaded again, and the frame is the same."""
    import pygame

    env = cardenv.kaboom_v0.env(render_mode="rgb_array")
    env.reset(seed=1)
    before = env.render()
    pygame.quit()
    np.testing.assert_array_equal(env.render(), before)
    pygame.quit()
    pygame.init()  # as the next env's first frame may do
    np.testing.assert_array_equal(env.render(), before)


@pytest.fixture
def no_display(monkeypatch):
    """SDL's dummy video driver: ``"human"`` opens its window off screen."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


@pytest.mark.parametrize("ruleset", ["kaboom_v0", "carte_v0"])
def test_human_mode_shows_the_drawn_table_in_a_window_after_every_step(ruleset, no_display, monkeypatch):
    import pygame

    module = getattr(cardenv, ruleset)
    monkeypatch.setitem(module.raw_env.metadata, "render_fps", 1000)  # no need to wait a second a frame
    env = module.env(render_mode="human")
    env.reset(seed=3)
    _play(env, 3)
    window = pygame.display.get_surface()
    assert window.get_size() == FRAME_SIZE
    shown = pygame.surfarray.array3d(window).transpose(1, 0, 2)
    drawn = module.env(render_mode="rgb_array")
    drawn.reset(seed=3)
    _play(drawn, 3)
    np.testing.assert_array_equal(shown, drawn.render())
    assert env.render() is None
    env.close()
    assert not pygame.display.get_init()


def test_a_drawn_mode_without_pygame_is_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r"drawing the table needs pygame: pip install 'cardenv\[render\]'"):
        cardenv.cut_v0.env(render_mode="rgb_array")
    with pytest.warns(UserWarning, match="render_mode 'rgb_array': drawing the table needs pygame"):
        view = SingleSeatEnv("cut_v0", render_mode="rgb_array")
    assert view.render_mode is None
    cardenv.cut_v0.env(render_mode="ansi")  # the text needs nothing


class FrameObserver:
    """``observe`` as the drawn table of the seat's view (``frames``) or a digest of the view
    record itself (the frame is a function of it): what ``check_leak_pairs`` compares."""

    def __init__(self, memory: str, frames: bool):
        self.memory, self.frames = memory, frames

    def observe(self, state, seat: int) -> np.ndarray:
        view = state.table_view(seat, self.memory, 16)
        if self.frames:
            return draw_frame(view).ravel()
        return np.frombuffer(hashlib.sha256(repr(view).encode()).digest(), dtype=np.uint8)


@pytest.mark.parametrize("ruleset", ruleset_names())
@pytest.mark.parametrize("memory", ["perfect", "none"])
def test_frames_show_a_seat_nothing_it_may_not_know(ruleset, memory):
    """Leak pairs (``cardenv.testing.check_leak_pairs``): games that differ only in cards the
    seat cannot know give it the same table view at every step (many pairs) and the same
    frames (a few, the drawing being a function of the view), for every seat."""
    config_class, state_class, _, oracle_class = RULESETS[ruleset]
    config = config_class(num_players=3, memory=memory)

    def new_state(options: dict, engine_seed: int):
        return state_class(config, np.random.default_rng(engine_seed), options)

    compared = 0
    for seat in range(3):
        for frames, pairs in ((False, 10), (True, 1)):
            stats = check_leak_pairs(new_state, FrameObserver(memory, frames), oracle_class(), seat,
                                     np.random.default_rng(seat + 10 * frames), pairs=pairs,
                                     decision_pairs=2 if ruleset != "onefifty_v0" else 0, choose=rarely_ending)
            compared += stats.compared_steps
    assert compared >= 3 * 11 * 8


def _figures(ruleset: str) -> dict:
    """A fixed game's frames, as a few figures: the mean of each colour channel and the
    share of card-face pixels, in the first player's view and face up."""
    env = getattr(cardenv, ruleset).env(render_mode="rgb_array")
    env.reset(seed=11)
    _play(env, 12, seed=5)
    game = env.unwrapped.game
    figures = {}
    for name, viewer in (("seat 0", 0), ("face up", None)):
        frame = draw_frame(game.table_view(viewer, game.config.memory, 16)).astype(np.int64)
        face = np.all(np.abs(frame - np.array([250, 250, 246])) <= 2, axis=2)
        figures[name] = {"mean_rgb": [round(float(m), 2) for m in frame.mean(axis=(0, 1))],
                         "card_face_share": round(float(face.mean()), 5)}
    return figures


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_a_fixed_game_draws_as_it_did(ruleset):
    recorded = json.loads(FRAME_FIGURES.read_text())[ruleset]
    figures = _figures(ruleset)
    for name, want in recorded.items():
        got = figures[name]
        np.testing.assert_allclose(got["mean_rgb"], want["mean_rgb"], atol=0.3, err_msg=f"{ruleset} {name}")
        assert got["card_face_share"] == pytest.approx(want["card_face_share"], rel=0.03), (ruleset, name)


def test_record_video_writes_an_episode_of_the_single_seat_view(tmp_path):
    """Gymnasium's RecordVideo on the single-seat view writes a playable video of an episode."""
    from gymnasium.wrappers import RecordVideo
    from moviepy import VideoFileClip

    view = SingleSeatEnv("kaboom_v0", opponents="heuristic", env_kwargs={"single_round": True},
                         render_mode="rgb_array")
    env = RecordVideo(view, str(tmp_path / "videos"), episode_trigger=lambda episode: True, disable_logger=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    done = False
    while not done:
        mask = view.action_masks()
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        done = terminated or truncated
        steps += 1
    env.close()
    videos = sorted((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1
    clip = VideoFileClip(str(videos[0]))
    try:
        assert tuple(clip.size) == FRAME_SIZE
        assert clip.reader.n_frames >= steps  # a frame at the reset and after every step
    finally:
        clip.close()


if __name__ == "__main__":
    FRAME_FIGURES.parent.mkdir(exist_ok=True)
    FRAME_FIGURES.write_text(json.dumps({ruleset: _figures(ruleset) for ruleset in ruleset_names()}, indent=1) + "\n")
    print(f"wrote {FRAME_FIGURES}")
