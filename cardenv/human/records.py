"""Game records: a small JSON file from which a game replays exactly.

A game is fixed by its ruleset, the env options, the seed (plus any scenario given to
``reset(options=...)``) and the actions taken, so that is what a record holds; the
action names and the round results ride along, for people reading the file and as the
check that a replay is the same game. Any ruleset works: nothing here knows one.

The file (``format`` ``"cardenv-game-record"``, ``version`` 1)::

    {"format": "cardenv-game-record", "version": 1, "cardenv_version": "0.1.0",
     "ruleset": "<ruleset>", "env_kwargs": {"num_players": 4}, "seed": 3,
     "reset_options": null, "agents": ["heuristic", "random", ...],
     "actions": [[seat, action_id, "action name"], ...],
     "rounds": [{"hand_totals": [...], "points_added": [...], "caller": 2,
                 "reason": "..."}, ...],
     "final_scores": [...], "truncated": false}

``agents`` (one spec per seat) is informational; ``reset_options`` and ``agents`` may
be null.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cardenv.core import validation

FORMAT = "cardenv-game-record"
FORMAT_VERSION = 1


class RecordError(ValueError):
    """A record that cannot be read, or that does not replay to the game it records."""


@dataclass
class GameRecord:
    ruleset: str
    env_kwargs: dict[str, Any]
    seed: int | None
    actions: list[tuple[int, int, str]]  # (seat, action id, action name), in play order
    rounds: list[dict[str, Any]] = field(default_factory=list)
    final_scores: list[int] = field(default_factory=list)
    truncated: bool = False
    reset_options: dict[str, Any] | None = None
    agents: list[str] | None = None

    # --- making one ------------------------------------------------------------------
    @classmethod
    def of_game(cls, ruleset: str, env_kwargs: dict, seed: int | None, state, actions, *,
                reset_options: dict | None = None, agents: list[str] | None = None) -> GameRecord:
        """The record of a finished (or abandoned) game: ``state`` is its engine,
        ``actions`` the ``(seat, action id)`` pairs it was played with."""
        named = [(int(seat), int(action), state.action_name(int(action))) for seat, action in actions]
        return cls(ruleset, dict(env_kwargs), seed, named, rounds=results_of(state),
                   final_scores=[int(s) for s in state.scores], truncated=bool(state.is_truncated),
                   reset_options=reset_options, agents=None if agents is None else list(agents))

    # --- files -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        from cardenv.core.version import __version__

        return {
            "format": FORMAT, "version": FORMAT_VERSION, "cardenv_version": __version__,
            "ruleset": self.ruleset, "env_kwargs": self.env_kwargs, "seed": self.seed,
            "reset_options": self.reset_options, "agents": self.agents,
            "actions": [list(a) for a in self.actions], "rounds": self.rounds,
            "final_scores": self.final_scores, "truncated": self.truncated,
        }

    def save(self, path: str | Path) -> None:
        """Write the record: one line per top-level key and per action (small, diffable)."""
        data = self.to_dict()
        actions = data.pop("actions")
        lines = ["{"] + [f" {json.dumps(key)}: {json.dumps(value)}," for key, value in data.items()]
        lines += [' "actions": [', ",\n".join("  " + json.dumps(a) for a in actions), " ]", "}"]
        Path(path).write_text("\n".join(lines) + "\n")

    @classmethod
    def from_dict(cls, data: Any, source: str = "record") -> GameRecord:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f"{source} is not a cardenv game record (expected a JSON object with "
                              f"\"format\": \"{FORMAT}\")")
        if data.get("version") != FORMAT_VERSION:
            raise RecordError(f"{source} has record version {data.get('version')!r}; "
                              f"this cardenv reads version {FORMAT_VERSION}")
        missing = [k for k in ("ruleset", "env_kwargs", "seed", "actions") if k not in data]
        if missing:
            raise RecordError(f"{source} lacks {', '.join(missing)}")
        actions = []
        for i, entry in enumerate(data["actions"]):
            if (not isinstance(entry, list) or len(entry) != 3 or not validation.is_integer(entry[0])
                    or not validation.is_integer(entry[1]) or not isinstance(entry[2], str)):
                raise RecordError(f"{source}: actions[{i}] must be [seat, action id, name], got {entry!r}")
            actions.append((entry[0], entry[1], entry[2]))
        return cls(data["ruleset"], dict(data["env_kwargs"] or {}), data["seed"], actions,
                   rounds=list(data.get("rounds") or []), final_scores=list(data.get("final_scores") or []),
                   truncated=bool(data.get("truncated", False)), reset_options=data.get("reset_options"),
                   agents=data.get("agents"))

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            text = Path(path).read_text()
        except OSError as error:
            raise RecordError(f"cannot read game record {str(path)!r}: {error.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"{str(path)!r} is not JSON ({error.msg} at line {error.lineno})") from None
        return cls.from_dict(data, repr(str(path)))

    # --- replaying ---------------------------------------------------------------------
    def make_env(self):
        """The raw env this game was played on, reset to its start."""
        from cardenv.envs.info import make_raw_env

        env = make_raw_env(self.ruleset, **self.env_kwargs)
        env.reset(seed=self.seed, options=self.reset_options)
        return env

    def replay(self, env=None) -> Iterator[tuple[int, int, str]]:
        """Replay on ``env`` (default: a fresh one from :meth:`make_env`), yielding each
        ``(seat, action, name)`` just after it is applied; raises :class:`RecordError`
        when the game departs from the record, including different results at the end."""
        env = self.make_env() if env is None else env
        state = env.game
        for i, (seat, action, name) in enumerate(self.actions):
            if state.is_terminal:
                raise RecordError(f"the game ended after {i} actions but the record has {len(self.actions)}")
            if seat != state.current_player:
                raise RecordError(f"action {i} ({name}) is recorded for player_{seat} "
                                  f"but player_{state.current_player} is to act")
            if not state.is_legal(action) or state.action_name(action) != name:
                raise RecordError(f"action {i} ({action}: {name}) is not what this game allows "
                                  f"(is the record from another version or other options?)")
            env.step(action)
            env.step_done_agents()
            yield seat, action, name
        self._check_results(state)

    def check(self) -> None:
        """Replay the whole game; raises :class:`RecordError` unless it is identical."""
        for _ in self.replay():
            pass

    def _check_results(self, state) -> None:
        if results_of(state) != self.rounds:
            raise RecordError("the replayed game's round results differ from the record's")
        if [int(s) for s in state.scores] != self.final_scores or bool(state.is_truncated) != self.truncated:
            raise RecordError(f"the replayed game ends with scores {list(state.scores)}, "
                              f"the record says {self.final_scores}")


def results_of(state) -> list[dict[str, Any]]:
    """The round results of an engine as JSON-ready dicts (every field of its results)."""
    return [json.loads(json.dumps(asdict(result), default=int)) for result in state.round_results]
