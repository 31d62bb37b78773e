"""The uniformly random agent ``random`` (``random_no_call`` is it under
:class:`cardenv.agents.base.NoCallAgent`)."""

from __future__ import annotations

from cardenv.agents.base import Agent, uniform_choice


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"
    needs_observation_vector = False

    def act(self, observation, state, seat) -> int:
        # No memory to reset per round and nothing but the mask read: straight to the
        # choice (the generic act's bookkeeping was a tenth of a training step's seats).
        return uniform_choice(observation["action_mask"], self.rng)

    def choose(self, observation, state, seat) -> int:
        return uniform_choice(observation["action_mask"], self.rng)
