"""Adapters to other frameworks: registration with PettingZoo's and Gymnasium's ``make``
(:mod:`~cardenv.adapters.registration`), RLlib (:mod:`~cardenv.adapters.rllib`, the
``rllib`` extra), and frame stacks that keep the action mask for PettingZoo's and
Gymnasium's envs (:mod:`~cardenv.envs.frame_stack`). Each module imports its
framework only when it is imported itself."""
