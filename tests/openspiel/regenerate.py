"""Write the golden OpenSpiel playthroughs of tests/test_openspiel.py again (after a
deliberate change of a game): ``python tests/openspiel/regenerate.py``."""

from pathlib import Path

from open_spiel.python.algorithms import generate_playthrough

import cardenv.adapters.openspiel  # noqa: F401  (registers the games)

PLAYTHROUGH_GAMES = {
    "onefifty_v0": "cardenv_onefifty_v0(players=3,single_round=true,max_turns_per_round=3)",
    "cut_v0": "cardenv_cut_v0(players=2,single_round=true,max_turns_per_round=3)",
    "kaboom_v0": "cardenv_kaboom_v0(players=2,single_round=true,max_turns_per_round=3)",
    "carte_v0": "cardenv_carte_v0(players=2,single_round=true,max_turns_per_round=3)",
    "onefifty_mini": "cardenv_onefifty_mini",
    "cut_mini": "cardenv_cut_mini",
    "kaboom_mini": "cardenv_kaboom_mini",
    "carte_mini": "cardenv_carte_mini",
}

if __name__ == "__main__":
    for name, game in PLAYTHROUGH_GAMES.items():
        path = Path(__file__).parent / f"{name}.txt"
        path.write_text(generate_playthrough.playthrough(game, None, seed=3))
        print(path, path.stat().st_size)
