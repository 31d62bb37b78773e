"""``cardenv play``: a person plays one seat in the terminal against agents.

Works for every ruleset through the env and its engine alone: the table is the engine's
own text view *as that seat may see it*, the events are the log's descriptions for that
seat, the choices are the legal actions' names as that seat reads them, numbered by
action id, and the help is the engine's rules summary and its actions' meanings. Nothing
the seat could not see is ever printed (other seats' choices included: a reaction-window
decision is secret until it is resolved, and the events say what became public).
"""

from __future__ import annotations

import copy
import re
import sys
from collections.abc import Callable
from typing import TextIO

import numpy as np
from rich.console import Console
from rich.text import Text

from cardenv.agents.base import observation_for
from cardenv.agents.specs import make_agent
from cardenv.envs.info import make_raw_env, ruleset_info
from cardenv.human.records import GameRecord

HUMAN = "human"
HELP = """\
Answer with a choice's number or its name (any unique start of it, any case). The
number is the action's id, so it means the same action in every phase: a number that
is not one of your choices now is refused, never taken for another choice.
  ?  this help      t  the table again      q  quit (the game is abandoned)
  u  take back your last step of a selection you have not committed yet
Cards are rank then suit (10H = ten of hearts; RJ, BJ = red and black joker); ?? is a
card you do not know. (n) after a card lists the players who know it. In a choice,
player_k (+j) is player_k, j seats after you clockwise (actions count seats from you)."""
UNDO = "undo"

# A card name in the engine's text: rank then suit, or a joker.
_CARD = re.compile(r"(?<![\w?])(10|[A2-9JQK])([SHDC])(?![\w])|(?<![\w?])(RJ|BJ)(?![\w])")
_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_RED_SUITS = ("H", "D")


class CardStyle:
    """How card names are printed: plain ASCII, or suit symbols; red and black colour
    where the output is a terminal (rich decides, and honours NO_COLOR)."""

    def __init__(self, symbols: bool, colour: bool):
        self.symbols, self.colour = symbols, colour

    @classmethod
    def for_stream(cls, stream: TextIO, ascii_only: bool) -> CardStyle:
        if ascii_only:
            return cls(False, False)
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        return cls(symbols=encoding == "utf8", colour=True)

    def console(self, out: TextIO) -> Console:
        # Without colour, rich writes plain text even to a terminal.
        return Console(file=out, highlight=False, emoji=False, soft_wrap=True, no_color=not self.colour,
                       color_system="auto" if self.colour else None)

    def __call__(self, text: str) -> Text:
        styled = Text()
        position = 0
        for match in _CARD.finditer(text):
            styled.append(text[position:match.start()])
            styled.append(*self._card(match))
            position = match.end()
        styled.append(text[position:])
        return styled

    def _card(self, match: re.Match) -> tuple[str, str]:
        if match.group(3):  # a joker
            red = match.group(3) == "RJ"
            shown = ("🃏R" if red else "🃏B") if self.symbols else match.group(3)
        else:
            rank, suit = match.group(1), match.group(2)
            red = suit in _RED_SUITS
            shown = rank + (_SYMBOLS[suit] if self.symbols else suit)
        return shown, "bold red" if red else "bold"



class Quit(Exception):
    """The person asked to stop (or their input ended)."""


def choose_action(legal: list[int], name_of: Callable[[int], str], answer: str, num_actions: int,
                  also_named: Callable[[int], str] | None = None) -> int | str:
    """The action an answer picks among ``legal``: an action id (a number, as shown), an
    exact name, or a unique start of a name (any case); a name is the one shown
    (``name_of``) or ``also_named``'s (the action table's own, as the docs write it).
    Returns an error message (str) for an answer that picks nothing or more than one; a
    number that is no legal choice now is refused, whatever it named in an earlier phase."""
    answer = answer.strip()
    choices = ", ".join(map(str, legal))
    if answer.isdigit():
        k = int(answer)
        if k in legal:
            return k
        if k < num_actions:
            return f"{k} ({name_of(k)}) is not a choice now; your choices are {choices}"
        return f"no action {k}: your choices are {choices}"
    names = {a: {name_of(a).lower(), *([also_named(a).lower()] if also_named else [])} for a in legal}
    wanted = answer.lower()
    exact = [a for a, ns in names.items() if wanted in ns]
    if exact:
        return exact[0]
    starts = [a for a, ns in names.items() if any(n.startswith(wanted) for n in ns)]
    if len(starts) == 1:
        return starts[0]
    if not starts:
        return f"no choice named {answer!r}; type one of the numbers {choices} or ? for help"
    return f"{answer!r} could be {', '.join(repr(name_of(a)) for a in starts)}; type more of the name"


def docs_page(ruleset: str) -> str:
    """The ruleset's page in the cardenv sources: every rule, with its id."""
    return f"docs/{ruleset.removesuffix('_v0')}.md"


def help_text(state, seat: int) -> str:
    """The controls, the ruleset in short and what the choices of this decision mean (each
    kind of legal action once, with its meaning from the action table)."""
    table = state.action_table
    kinds: dict[str, list[int]] = {}
    for action in state.legal_actions():
        kinds.setdefault(table.specs[action].kind, []).append(action)
    meanings = []
    for actions in kinds.values():
        spec = table.specs[actions[0]]
        example = state.action_name_for(actions[0], seat) + (", ..." if len(actions) > 1 else "")
        meanings.append(f"  {example}: {spec.description}" if spec.description else f"  {example}")
    ruleset = state.game_name
    return "\n".join([
        HELP, "",
        f"{ruleset} in short (every rule, with its id, is in {docs_page(ruleset)} of the cardenv sources):",
        state.rules_in_short(), "",
        f"Now, in phase {state.phase.name.lower()}, your choices mean:", *meanings,
    ])


def play(
    ruleset: str,
    seat: int,
    opponents: list[str],
    seed: int | None,
    env_kwargs: dict,
    read: Callable[[str], str] = input,
    out: TextIO = sys.stdout,
    style: CardStyle | None = None,
    save: str | None = None,
) -> int:
    """Play one game with a person at ``seat``; returns the exit status (0, also after
    quitting). ``opponents`` holds one agent spec per other seat, in seat order."""
    style = style or CardStyle(False, False)
    console = style.console(out)
    info = ruleset_info(ruleset, **env_kwargs)
    env = make_raw_env(ruleset, **env_kwargs)
    n = info.num_players
    generators = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]
    others = iter(opponents)
    specs = [HUMAN if p == seat else next(others) for p in range(n)]
    agents = [None if p == seat else make_agent(specs[p], info, generators[p]) for p in range(n)]
    env.reset(seed=seed)
    state = env.game
    actions: list[tuple[int, int]] = []
    # Before each step of the person's selection in progress: the env as it was, and how
    # many actions had been taken. Taking a step back restores both; since a selection
    # is private and changes nothing until committed, the game is then as if the step
    # had never been taken (and the record never holds it).
    selection_steps: list[tuple[object, int]] = []
    shown_events = 0

    def say(text: str = "") -> None:
        console.print(style(text))
        out.flush()

    def show_events() -> None:
        nonlocal shown_events
        for event in state.events[shown_events:]:
            say("  " + event.describe(state.card_name, seat))
        shown_events = len(state.events)

    say(f"{ruleset}: you are player_{seat}; "
        + ", ".join(f"player_{p}={spec}" for p, spec in enumerate(specs) if p != seat)
        + (f"; seed {seed}" if seed is not None else "") + ". Type ? for help.")
    try:
        while not state.is_terminal:
            p = state.current_player
            if p != seat:
                selection_steps.clear()
                action = agents[p].act(observation_for(agents[p], env, p), state, p)
            else:
                say("\nsince your last decision:")
                show_events()
                say(state.render_text(seat, state.config.memory, recent_events=0))
                last_step = actions[-1][1] if selection_steps else None
                action = ask(state, seat, read, say, last_step)
                if action == UNDO:
                    env, taken = selection_steps.pop()
                    state = env.game
                    del actions[taken:]
                    say(f"taken back: {state.action_name_for(last_step, seat)}")
                    continue
                if state.action_table.specs[action].kind in state.selection_kinds:
                    selection_steps.append((copy.deepcopy(env), len(actions)))
                else:
                    selection_steps.clear()
            actions.append((p, action))
            env.step(action)
            env.step_done_agents()
        say("\nsince your last decision:")
        show_events()
        say("game over. ranking (1 = best): " + ", ".join(
            f"player_{p}{' (you)' if p == seat else ''}: {rank} with {state.scores[p]}"
            for p, rank in sorted(enumerate(state.ranks()), key=lambda pr: pr[1])))
        return 0
    except Quit:
        say("\nquit: the game is abandoned.")
        return 0
    finally:
        for agent in agents:
            if agent is not None:
                agent.close()
        if save:
            GameRecord.of_game(ruleset, env_kwargs, seed, state, actions, agents=specs).save(save)
            say(f"game record saved to {save}" + ("" if state.is_terminal else " (unfinished: it replays "
                                                                                 "up to where you quit)"))


def ask(state, seat: int, read: Callable[[str], str], say: Callable[[str], None], last_step: int | None) -> int | str:
    """The person's choice at ``state`` (an action id), or :data:`UNDO` to take back
    ``last_step``, the last step of their selection in progress (None: there is none)."""
    legal = state.legal_actions()
    width = len(str(legal[-1]))
    say("your choices:")
    for action in legal:
        say(f"  {action:>{width}}. {state.action_name_for(action, seat)}")
    if last_step is not None:
        say(f"  {'u':>{width}}. take back {state.action_name_for(last_step, seat)}")
    while True:
        try:
            answer = read("your choice> ")
        except EOFError:
            raise Quit from None
        command = answer.strip().lower()
        if command in ("q", "quit", "exit"):
            raise Quit
        if command in ("?", "h", "help"):
            say(help_text(state, seat))
            continue
        if command in ("t", "table"):
            say(state.render_text(state.current_player, state.config.memory, recent_events=0))
            continue
        if command in ("u", "undo"):
            if last_step is not None:
                return UNDO
            say(cannot_undo(state))
            continue
        if not command:
            continue
        chosen = choose_action(legal, lambda a: state.action_name_for(a, seat), answer, state.num_actions,
                               also_named=state.action_name)
        if isinstance(chosen, str):
            say(chosen)
            continue
        return chosen


def cannot_undo(state) -> str:
    if not state.selection_kinds:
        return f"nothing to take back: {state.game_name} has no selections, every choice takes effect at once"
    kinds = " or ".join(sorted(kind.replace("_", " ") for kind in state.selection_kinds))
    return (f"nothing to take back: only the steps of your selection in progress ({kinds}) can be taken back; "
            "every other choice takes effect at once")
