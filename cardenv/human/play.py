"""``cardenv play``: a person plays one seat in the terminal against agents.

Works for every ruleset through the env and its engine alone: the table is the engine's
own text view *as that seat may see it*, the events are the log's descriptions for that
seat, the choices are the legal actions' names as that seat reads them, numbered by
action id, and the help is the engine's rules summary and its actions' meanings. Nothing
the seat could not see is ever printed (other seats' choices included: a reaction-window
decision is secret until it is resolved, and the events say what became public).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.text import Text

from cardenv.human.game import EventLog, PersonsGame, cannot_undo, round_heading

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


def table_text(state, viewer: int | None) -> str:
    """The engine's text table as ``viewer`` sees it, without its recent events (play and
    replay print those themselves): the turn counter against the round's cap and what the
    phase asks, in words (the ruleset's ``phase_words``)."""
    return state.render_text(viewer, state.config.memory, recent_events=0)


def help_text(state, seat: int, controls: str = HELP) -> str:
    """The controls (the terminal's, or ``controls``), the ruleset in short and what the
    choices of this decision mean (each kind of legal action once, with its meaning from
    the action table)."""
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
        controls, "",
        f"{ruleset} in short (every rule, with its id, is in {docs_page(ruleset)} of the cardenv sources):",
        state.rules_in_short(), "",
        f"Now ({state.phase_in_words()}; phase {state.phase.name.lower()}), your choices mean:", *meanings,
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
    game = TerminalGame(ruleset, seat, opponents, seed, env_kwargs, read, out, style or CardStyle(False, False))
    try:
        game.run()
        return 0
    except Quit:
        game.say("\nquit: the game is abandoned.")
        return 0
    finally:
        game.close(save)


class TerminalGame:
    """One game at the terminal: the game (:class:`PersonsGame`) and what the person has
    been shown."""

    def __init__(self, ruleset: str, seat: int, opponents: list[str], seed: int | None, env_kwargs: dict,
                 read: Callable[[str], str], out: TextIO, style: CardStyle):
        self.game = PersonsGame(ruleset, seat, opponents, seed, env_kwargs)
        self.seat, self.read = seat, read
        self.out, self.style, self.console = out, style, style.console(out)
        self.log = EventLog(seat)
        self.decided = False  # whether the person has made a decision yet

    @property
    def state(self):
        return self.game.state

    def say(self, text: str = "") -> None:
        self.console.print(self.style(text))
        self.out.flush()

    def run(self) -> None:
        """Play to the game's end (:class:`Quit` when the person quits)."""
        game, seat = self.game, self.seat
        self.say(f"{game.ruleset}: you are player_{seat}; "
                 + ", ".join(f"player_{p}={spec}" for p, spec in enumerate(game.specs) if p != seat)
                 + (f"; seed {game.seed}" if game.seed is not None else "") + ". Type ? for help.")
        self.say(round_heading(0))
        while not self.state.is_terminal:
            if not game.persons_turn:
                game.agent_step()
                continue
            action = self.persons_choice()
            if action is not None:
                game.take(action)
        self.show_events()
        state = self.state
        self.say("\ngame over. " + final_ranking(state, seat))

    def persons_choice(self) -> int | None:
        """Show the person what happened and the table, and read their choice: an action
        id, or None when they took back a step of their selection (already undone)."""
        seat = self.seat
        if not self.show_events():
            self.say()
        self.decided = True
        self.say(table_text(self.state, seat))
        action = ask(self.state, seat, self.read, self.say, self.game.last_selection_step)
        if action == UNDO:
            taken_back = self.game.undo()
            self.say(f"taken back: {self.state.action_name_for(taken_back, seat)}")
            return None
        return action

    def show_events(self) -> bool:
        """The events since the last shown (:class:`EventLog`), under "since your last
        decision:" (nothing when there are none; returns whether there were)."""
        lines = self.log.new_lines(self.state)
        if not lines:
            return False
        self.say("\nsince your last decision:" if self.decided else "so far:")
        for line in lines:
            self.say(line)
        return True

    def close(self, save: str | None) -> None:
        """Close the agents; save the game record (the game as far as it went) to ``save``."""
        self.game.close()
        if save:
            self.game.record().save(save)
            self.say(f"game record saved to {save}" + ("" if self.state.is_terminal else " (unfinished: it replays "
                                                                                      "up to where you quit)"))


def final_ranking(state, seat: int) -> str:
    """The ranks at the game's end, best first, the person's seat marked."""
    return "ranking (1 = best): " + ", ".join(
        f"player_{p}{' (you)' if p == seat else ''}: {rank} with {state.scores[p]}"
        for p, rank in sorted(enumerate(state.ranks()), key=lambda pr: pr[1]))


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
            say(table_text(state, state.current_player))
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
