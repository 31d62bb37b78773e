"""The uniformly random agent ``random`` (``random_no_call`` is it under
:class:`cardenv.agents.base.NoCallAgent`)."""

from __future__ import annotations

from cardenv.core.agent import Agent, uniform_choice


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"
    needs_observation_vector = False

    def choose(self, observation, state, seat) -> int:
        return uniform_choice(observation["action_mask"], self.rng)

    def act(self, observation, state, seat) -> int:
        # No memory to reset per round, and a choice from the mask needs no check against
        # it: acting is choosing (the generic act's bookkeeping was a fifth of the move).
        return self.choose(observation, state, seat)
