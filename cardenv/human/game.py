"""One game with a person at one seat and agents at the others, whatever shows it: the
terminal (:mod:`cardenv.human.play`) or the browser (:mod:`cardenv.human.web`).

It holds the env, the agents, the actions taken (the game record) and the steps of the
person's selection in progress, which the person may take back: a selection is private
and changes nothing until it is committed, so taking a step back leaves the game as if
the step had never been taken (and the record never holds it).
"""

from __future__ import annotations

import copy
import re

import numpy as np

from cardenv.agents.base import observation_for
from cardenv.agents.specs import make_agent
from cardenv.envs.info import make_raw_env, ruleset_info
from cardenv.human.records import GameRecord

HUMAN = "human"  # the person's seat in the record's list of agents


class PersonsGame:
    """The game of a person at ``seat`` against ``opponents`` (one agent spec per other
    seat, in seat order), dealt from ``seed``."""

    def __init__(self, ruleset: str, seat: int, opponents: list[str], seed: int | None, env_kwargs: dict):
        self.ruleset, self.seat, self.seed, self.env_kwargs = ruleset, seat, seed, env_kwargs
        info = ruleset_info(ruleset, **env_kwargs)
        n = info.num_players
        generators = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]
        others = iter(opponents)
        self.specs = [HUMAN if p == seat else next(others) for p in range(n)]
        self.agents = [None if p == seat else make_agent(self.specs[p], info, generators[p]) for p in range(n)]
        self.env = make_raw_env(ruleset, **env_kwargs)
        self.env.reset(seed=seed)
        self.actions: list[tuple[int, int]] = []  # (seat, action) in the order taken
        # Before each step of the person's selection in progress: the env as it was, and how
        # many actions had been taken; taking the step back restores both.
        self.selection_steps: list[tuple[object, int]] = []

    @property
    def state(self):
        """The engine's state (``env.unwrapped.game``)."""
        return self.env.game

    @property
    def persons_turn(self) -> bool:
        return not self.state.is_terminal and self.state.current_player == self.seat

    def agent_step(self) -> tuple[int, int]:
        """The agent to act takes its decision; returns (its seat, its action)."""
        p = self.state.current_player
        self.selection_steps.clear()
        action = self.agents[p].act(observation_for(self.agents[p], self.env, p), self.state, p)
        self._step(p, action)
        return p, action

    def take(self, action: int) -> None:
        """The person takes ``action``, one of their legal actions (a caller checks it: see
        :func:`cardenv.human.play.choose_action`)."""
        state = self.state
        if state.action_table.specs[action].kind in state.selection_kinds:
            self.selection_steps.append((copy.deepcopy(self.env), len(self.actions)))
        else:
            self.selection_steps.clear()
        self._step(self.seat, action)

    def _step(self, seat: int, action: int) -> None:
        self.actions.append((seat, action))
        self.env.step(action)
        self.env.step_done_agents()

    @property
    def last_selection_step(self) -> int | None:
        """The last step of the person's selection in progress, which :meth:`undo` takes
        back (None: there is none)."""
        return self.actions[-1][1] if self.selection_steps else None

    def undo(self) -> int:
        """Take back :attr:`last_selection_step`; returns the action taken back."""
        step = self.last_selection_step
        if step is None:
            raise ValueError("no step of a selection in progress to take back")
        self.env, taken = self.selection_steps.pop()
        del self.actions[taken:]
        return step

    def record(self) -> GameRecord:
        """The game as far as it went."""
        return GameRecord.of_game(self.ruleset, self.env_kwargs, self.seed, self.state, self.actions,
                                  agents=self.specs)

    def close(self) -> None:
        """Close the agents."""
        for agent in self.agents:
            if agent is not None:
                agent.close()


def cannot_undo(state) -> str:
    """Why there is nothing to take back."""
    if not state.selection_kinds:
        return f"nothing to take back: {state.game_name} has no selections, every choice takes effect at once"
    kinds = " or ".join(sorted(kind.replace("_", " ") for kind in state.selection_kinds))
    return (f"nothing to take back: only the steps of your selection in progress ({kinds}) can be taken back; "
            "every other choice takes effect at once")


ROUND_END = "round end"  # the event kind of a round's end (every hand shown)


def round_heading(round_index: int) -> str:
    return f"=== round {round_index + 1} ==="


def round_summary(text: str) -> list[str]:
    """A round's end event (``round 1 ends (reason): player_0 ... (facts); player_1 ...``)
    as lines: the reason, then one line per player."""
    head, sep, groups = text.partition("): ")
    if not sep:
        return [text]
    return [head + "):", *("  " + group for group in re.split(r"; (?=player_\d)", groups))]


class EventLog:
    """The game's events as ``seat`` saw them, as lines: a new round after a blank line
    under its heading, a round's end as a summary with one line per player."""

    def __init__(self, seat: int):
        self.seat = seat
        self.shown = 0  # the events turned into lines so far
        self.round = 0  # the round of the last of them

    def new_lines(self, state) -> list[str]:
        """The lines of the events since the last call."""
        new = state.events[self.shown:]
        self.shown = len(state.events)
        lines = []
        for event in new:
            if event.round != self.round:
                self.round = event.round
                lines += ["", round_heading(event.round)]
            text = event.describe(state.card_name, self.seat)
            lines += ["  " + line for line in (round_summary(text) if event.kind == ROUND_END else [text])]
        return lines
