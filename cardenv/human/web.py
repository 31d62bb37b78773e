"""``cardenv play --web``: a person plays one seat in the browser against agents.

A small local server (aiohttp) holds the game (:class:`cardenv.human.game.PersonsGame`,
the same game the terminal plays) and one page talks to it over a websocket. The page
draws the table as the person's seat sees it (the SVG of :mod:`cardenv.drawing.svg`),
logs what happened as that seat saw it, and takes the person's choices by clicks: each
legal action's place on the table (``GameState.action_target``: a slot, a card in the
hand, a pile, a meld) is highlighted, a click on it takes the action (a small menu where
several actions share the place), and the choices with no place (pass, call, confirm) are
buttons. Everything the page receives is computed here from that seat's view: nothing
the seat could not see.

The messages, JSON over ``/ws``: the server sends ``view`` (after every change: the table,
the new log lines, the choices, the help), ``error`` (one line: the answer to a message
that could not be taken; nothing changed) and ``refused`` (a second page while one is
open); the page sends ``{"type": "act", "action": ID, "version": V}`` (V: the view the
click was made on), ``{"type": "undo", "version": V}`` and ``{"type": "quit"}``.

A closed tab loses nothing: the server keeps the game, and the page opened again goes on
where it was. The game ends at its end, on the page's quit or on Ctrl-C; the record is then
saved (``--save``) and the server stops.
"""

from __future__ import annotations

import asyncio
import json
import sys
import webbrowser
from collections.abc import Callable

from aiohttp import WSMsgType, web

from cardenv.drawing.svg import SvgTable, svg_open
from cardenv.human.chips import static_text, with_card_chips
from cardenv.human.game import EventLog, PersonsGame, cannot_undo
from cardenv.human.play import choose_action, final_ranking, help_text

CONTROLS = """\
Click a highlighted place on the table to take the choice it stands for (a menu opens
where several choices share a place); the choices with no place are the buttons.
  ?  this help      u  take back your last step of a selection you have not committed yet
Cards are rank then suit (10H = ten of hearts; RJ, BJ = red and black joker); a card face
down is one you do not know. The numbered dots under a card are the players who know it.
In a choice, player_k (+j) is player_k, j seats after you clockwise."""
SECOND_PAGE = ("this game is already open in another browser tab or window, and only one page may play it: "
               "close that one, then reload this page")


class WebTable:
    """The game behind the page: its versions (a new one after every change), the log
    lines so far, the open page's websocket and what that page holds already."""

    def __init__(self, game: PersonsGame, delay: float = 0.0, say: Callable[[str], None] = print):
        self.game, self.delay, self.say = game, delay, say
        self.drawing = SvgTable(targets=True)
        self.log = EventLog(game.seat)
        self.lines: list[str] = []
        self.version = 0
        self.lock = asyncio.Lock()  # one change at a time; a view is read between changes
        self.socket: web.WebSocketResponse | None = None
        self.sent_symbols = 0  # the cards' symbols and log lines the open page holds
        self.sent_lines = 0
        self.ended = asyncio.Event()  # the game is over (and shown) or abandoned
        self.quit = False
        self.agents_task: asyncio.Task | None = None

    # --- the game's changes ------------------------------------------------------------
    def changed(self) -> int:
        """A new version; returns how many log lines it added (what the person saw happen)."""
        self.version += 1
        new = self.log.new_lines(self.game.state)
        self.lines += new
        return len(new)

    async def play_agents(self) -> None:
        """The agents take their decisions until the person's turn or the game's end, the
        page shown every move; a move the person saw happen (a secret decision, such as a
        pass in a reaction window before it resolves, shows nothing) is followed by a
        pause of ``delay`` seconds, to follow the play."""
        game = self.game
        while not game.state.is_terminal and not game.persons_turn:
            async with self.lock:
                await asyncio.to_thread(game.agent_step)
                seen = self.changed()
            await self.show()
            if self.delay and seen and not game.persons_turn and not game.state.is_terminal:
                await asyncio.sleep(self.delay)

    def start_agents(self) -> None:
        self.agents_task = asyncio.create_task(self.play_agents())

    async def handle(self, text: str) -> None:
        """One message of the page."""
        try:
            message = json.loads(text)
            kind = message["type"]
        except (ValueError, TypeError, KeyError):
            await self.error(f"a message must be JSON with a type (act, undo or quit), got {text[:80]!r}")
            return
        if kind == "quit":
            self.quit = True
            self.ended.set()
            return
        if kind not in ("act", "undo"):
            await self.error(f"unknown message type {kind!r}: the types are act, undo and quit")
            return
        answer = None
        async with self.lock:
            state, seat = self.game.state, self.game.seat
            if state.is_terminal:
                answer = "the game is over: nothing more to choose"
            elif not self.game.persons_turn:
                answer = f"not your turn: player_{state.current_player} is deciding"
            elif message.get("version") != self.version:
                answer = (f"that was clicked on an earlier table (view {message.get('version')!r}, now "
                          f"{self.version}): the table now is shown")
            elif kind == "undo":
                if self.game.last_selection_step is None:
                    answer = cannot_undo(state)
                else:
                    self.game.undo()
                    self.changed()
            else:
                action = message.get("action")
                if action.__class__ is not int:
                    answer = f"action must be an action id (an integer), got {action!r}"
                else:
                    chosen = choose_action(state.legal_actions(), lambda a: state.action_name_for(a, seat),
                                           str(action), state.num_actions)
                    if isinstance(chosen, str):
                        answer = chosen
                    else:
                        self.game.take(chosen)
                        self.changed()
        if answer is not None:
            await self.error(answer)
        await self.show()
        if answer is None:
            self.start_agents()

    # --- the page --------------------------------------------------------------------
    def view_message(self) -> dict:
        """The page's next view (:func:`seat_page`), with the cards' new symbols and the log
        lines the page has not got."""
        game = self.game
        message = {"type": "view", "version": self.version,
                   **seat_page(game.state, game.seat, self.drawing, game.specs, game.last_selection_step),
                   "defs": self.drawing.defs(self.sent_symbols), "log_from": self.sent_lines,
                   "log": self.lines[self.sent_lines:]}
        self.sent_symbols, self.sent_lines = len(self.drawing.symbols), len(self.lines)
        return message

    async def show(self) -> None:
        """Send the open page the view now (nothing when no page is open); once the game is
        over and shown, the game has ended."""
        socket = self.socket
        if socket is None or socket.closed:
            return
        async with self.lock:
            message = self.view_message()
        try:
            await socket.send_json(message)
        except ConnectionError:
            return
        if message["over"]:
            self.ended.set()

    async def error(self, text: str) -> None:
        if self.socket is not None and not self.socket.closed:
            await self.socket.send_json({"type": "error", "message": text})

    # --- the server ------------------------------------------------------------------
    async def page(self, request: web.Request) -> web.Response:
        game = self.game
        title = f"{game.ruleset}: you are player_{game.seat}"
        seats = ", ".join(f"player_{p} {'you' if p == game.seat else spec}" for p, spec in enumerate(game.specs))
        page = (with_card_chips(static_text("play.html")).replace("__TITLE__", title)
                .replace("__SEATS__", "seats: " + seats).replace("__SVG_OPEN__", json.dumps(svg_open())))
        return web.Response(text=page, content_type="text/html")

    async def websocket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(heartbeat=20)
        await socket.prepare(request)
        if self.socket is not None and not self.socket.closed:
            await socket.send_json({"type": "refused", "message": SECOND_PAGE})
            await socket.close()
            return socket
        self.socket, self.sent_symbols, self.sent_lines = socket, 0, 0
        try:
            await self.show()
            async for message in socket:
                if message.type == WSMsgType.TEXT:
                    await self.handle(message.data)
        finally:
            if self.socket is socket:
                self.socket = None
                if not self.ended.is_set():
                    self.say("the page was closed; the game waits: open the address again to go on "
                             "(Ctrl-C ends the game)")
        return socket

    def app(self) -> web.Application:
        app = web.Application()
        app.add_routes([web.get("/", self.page), web.get("/ws", self.websocket)])
        return app


def seat_page(state, seat: int, drawing: SvgTable, specs: list[str], selection_step: int | None = None) -> dict:
    """What the page shows ``seat`` at ``state``, from that seat's view alone: the drawn table
    (``drawing``'s elements, with the places to click), the status lines, what is asked
    now, and on the seat's turn its choices (each with its name and its place on the table,
    or None), the step of its selection it may take back and the help. ``specs``: the
    agent at each seat (the seating is public)."""
    view = state.table_view(seat, state.config.memory, recent_events=0)
    page = {"table": drawing.frame(view), "status": list(view.status), "choices": [], "undo": None, "help": "",
            "over": state.is_terminal}
    if state.is_terminal:
        page["now"] = "game over. " + final_ranking(state, seat)
    elif state.current_player == seat:
        page["now"] = f"your turn: {state.phase_in_words()}"
        page["choices"] = [{"action": a, "name": state.action_name_for(a, seat), "target": state.action_target(a, seat)}
                           for a in state.legal_actions()]
        page["undo"] = None if selection_step is None else state.action_name_for(selection_step, seat)
        page["help"] = help_text(state, seat, controls=CONTROLS)
    else:
        p = state.current_player
        page["now"] = f"player_{p} ({specs[p]}) is deciding"
    return page


async def serve(table: WebTable, host: str, port: int, open_browser: bool) -> None:
    """Serve the page until the game has ended."""
    runner = web.AppRunner(table.app(), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1]
    address = f"http://{'localhost' if host in ('127.0.0.1', 'localhost') else host}:{bound}/"
    table.say(f"{table.game.ruleset}: playing in the browser at {address} (Ctrl-C ends the game)")
    if open_browser:
        webbrowser.open(address)
    table.start_agents()
    try:
        await table.ended.wait()
        if table.socket is not None and not table.socket.closed:
            if table.quit:
                await table.socket.send_json({"type": "ended", "message": "quit: the game is abandoned"})
            await table.socket.close()
    finally:
        if table.agents_task is not None:
            table.agents_task.cancel()
        await runner.cleanup()


def play_web(ruleset: str, seat: int, opponents: list[str], seed: int | None, env_kwargs: dict,
             host: str = "127.0.0.1", port: int = 8765, open_browser: bool = True, delay: float = 0.6,
             save: str | None = None, say: Callable[[str], None] = print) -> int:
    """Play one game with a person at ``seat`` in the browser; returns the exit status (0,
    also when the person quits or presses Ctrl-C). ``opponents``: one agent spec per other
    seat, in seat order; ``port`` 0 takes a free one."""
    game = PersonsGame(ruleset, seat, opponents, seed, env_kwargs)
    table = WebTable(game, delay, say)
    try:
        asyncio.run(serve(table, host, port, open_browser))
    except KeyboardInterrupt:
        say("\nstopped: the game is abandoned.")
    finally:
        game.close()
        state = game.state
        if state.is_terminal:
            say("game over. " + final_ranking(state, seat))
        elif table.quit:
            say("quit: the game is abandoned.")
        if save:
            game.record().save(save)
            say(f"game record saved to {save}" + ("" if state.is_terminal else " (unfinished: it replays up to "
                                                                                "where the game stopped)"))
        sys.stdout.flush()
    return 0
