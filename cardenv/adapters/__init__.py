"""Adapters to other frameworks: registration with PettingZoo's and Gymnasium's ``make``
(:mod:`~cardenv.adapters.registration`) and RLlib (:mod:`~cardenv.adapters.rllib`, the
``rllib`` extra). Each module imports its framework only when it is imported itself."""
