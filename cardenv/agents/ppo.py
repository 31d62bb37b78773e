"""Agents that play a trained MaskablePPO policy (torch and sb3-contrib are imported
only when one is built).

``PPOAgent`` plays one model, from a file or already loaded; by default it takes the
most likely legal action. A model trained with a guide (``cardenv train --guide``; the
model file records it) gets its guided observation (:mod:`cardenv.agents.guide`).
``PolicyPoolAgent`` (self-play opponents) holds a pool of frozen snapshots, picks one
per game and samples its actions. Sampling uses the agent's own seeded generator, never
torch's.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from gymnasium import spaces

from cardenv.agents.base import AgentFactory
from cardenv.agents.guide import Guide, guided_size, policy_observation_space
from cardenv.core import validation
from cardenv.core.agent import Agent, RulesetInfo, uniform_choice
from cardenv.envs.base import DEFAULT_REWARD_MODE, DEFAULT_REWARD_SCALE
from cardenv.envs.frame_stack import FrameHistory

METADATA_NAME = "cardenv.json"
"""A file inside a saved model's zip: the ruleset and env options it was trained on."""


def model_metadata(path: str) -> dict | None:
    """What ``cardenv train`` recorded in a model zip (ruleset, env options), or None for
    a model saved otherwise. Reads the zip only: no torch."""
    import json
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            if METADATA_NAME not in archive.namelist():
                return None
            return json.loads(archive.read(METADATA_NAME))
    except (OSError, zipfile.BadZipFile, ValueError):
        return None


def load_model(path: str):
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, device="cpu")


def masked_probabilities(model, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The policy's action probabilities with the mask applied (zero where illegal),
    computed by torch (the reference the tests check :class:`NumpyActor` against)."""
    import torch

    policy = model.policy
    with torch.no_grad():
        obs_tensor = torch.as_tensor(observation, dtype=torch.float32).reshape(1, -1)
        distribution = policy.get_distribution(obs_tensor, action_masks=mask.astype(bool).reshape(1, -1))
        probs = distribution.distribution.probs[0].numpy().astype(np.float64)
    probs = np.where(mask > 0, probs, 0.0)
    return probs / probs.sum()


def predicted_value(model, observation: np.ndarray) -> float:
    """The policy's value estimate of one observation vector, computed by torch (the
    reference the tests check :class:`NumpyCritic` against)."""
    import torch

    with torch.no_grad():
        obs_tensor = torch.as_tensor(observation, dtype=torch.float32).reshape(1, -1)
        return float(model.policy.predict_values(obs_tensor)[0, 0])


_ACTIVATIONS = {"Tanh": np.tanh, "ReLU": lambda x: np.maximum(x, 0.0)}


def _numpy_layers(extractor, modules) -> list | None:
    """A torch MLP (Linear and activation modules) behind a flatten features extractor as
    ("linear", weight transposed, bias) and ("activation", function) steps; None for
    another extractor or a module of another kind."""
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    if not isinstance(extractor, FlattenExtractor):
        return None
    layers = []
    for module in modules:
        if isinstance(module, nn.Linear):
            layers.append(("linear", module.weight.detach().numpy().T.copy(), module.bias.detach().numpy().copy()))
        elif type(module).__name__ in _ACTIVATIONS:
            layers.append(("activation", _ACTIVATIONS[type(module).__name__]))
        else:
            return None
    return layers


def _run_layers(layers: list, observation: np.ndarray) -> np.ndarray:
    x = np.asarray(observation, dtype=np.float32)
    for kind, *parts in layers:
        x = x @ parts[0] + parts[1] if kind == "linear" else parts[0](x)
    return x


class NumpyActor:
    """A MaskablePPO policy's actor (flatten, MLP, action layer, and a guided policy's
    guide term) as numpy matrix products, for one decision at a time: a torch call per
    decision costs several times the arithmetic at these sizes. ``from_model`` returns
    None for a policy of another shape (the agent then asks torch)."""

    def __init__(self, layers: list, guide_weight: float | None):
        self.layers = layers  # ("linear", weight transposed, bias) or ("activation", function)
        self.guide_weight = guide_weight

    @classmethod
    def from_model(cls, model) -> NumpyActor | None:
        policy = model.policy
        layers = _numpy_layers(policy.pi_features_extractor, [*policy.mlp_extractor.policy_net, policy.action_net])
        if layers is None:
            return None
        weight = getattr(policy, "guide_weight", None)
        return cls(layers, None if weight is None else float(weight.detach()))

    def logits(self, observation: np.ndarray) -> np.ndarray:
        x = _run_layers(self.layers, observation)
        if self.guide_weight is not None:
            x = x + np.float32(self.guide_weight) * np.asarray(observation[-len(x):], dtype=np.float32)
        return x

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Softmax over the legal actions (zero elsewhere), in float64."""
        logits = self.logits(observation).astype(np.float64)
        legal = mask > 0
        logits = np.where(legal, logits - logits[legal].max(), -np.inf)
        weights = np.exp(logits)
        return weights / weights.sum()


class NumpyCritic:
    """A MaskablePPO policy's value function (flatten, value MLP, value layer) as numpy
    matrix products; ``from_model`` returns None for a policy of another shape."""

    def __init__(self, layers: list):
        self.layers = layers

    @classmethod
    def from_model(cls, model) -> NumpyCritic | None:
        policy = model.policy
        layers = _numpy_layers(policy.vf_features_extractor, [*policy.mlp_extractor.value_net, policy.value_net])
        return None if layers is None else cls(layers)

    def value(self, observation: np.ndarray) -> float:
        return float(_run_layers(self.layers, observation)[0])


def derived_pieces_missing(info: RulesetInfo, trained_on: dict) -> list:
    """The pieces a model's training env options (``trained_on``) added to the
    observation that this env's lack, where they are worked out from the rest of the
    observation (the observer's ``derived_pieces``, e.g. a rummy ruleset's ``meld_hints``): each
    option with its function of this env's observation, in layout order."""
    return [(option, derive) for option, derive in info.observer_class.derived_pieces.items()
            if trained_on.get(option) and not getattr(info.config, option)]


def _derived_size(info: RulesetInfo, derived: tuple) -> int:
    """How many entries the ``derived`` pieces append to an observation of ``info``."""
    blank = np.zeros(info.layout.size, dtype=np.float32)
    return sum(len(derive(info.layout, blank)) for derive in derived)


def _check_model_fits(model, info: RulesetInfo, where: str, guide: str | None, frame_stack: int = 1,
                      derived: tuple = ()) -> None:
    expected = ((guided_size(info, guide) + _derived_size(info, derived)) * frame_stack,)
    if tuple(model.observation_space.shape) != expected or model.action_space.n != len(info.action_table):
        guided = (f" (guided by {guide})" if guide else "") + (f" ({frame_stack} frames)" if frame_stack > 1 else "")
        raise ValueError(
            f"{where} was trained for observations {tuple(model.observation_space.shape)} and "
            f"{model.action_space.n} actions, but {info.name} with {info.env_kwargs or 'default options'}{guided} "
            f"has {expected} and {len(info.action_table)}"
        )


class PPOAgent(Agent):
    name = "ppo"

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, model, deterministic: bool = True,
                 guide: str | None = None, agent_factory: AgentFactory | None = None, frame_stack: int = 1):
        """``model``: a file (its recorded guide and frame stack are used) or a loaded
        model (``guide`` says which agent guided it, if one did; ``frame_stack`` how many
        decisions' observations it sees at once); ``agent_factory`` builds a guided
        model's guide. The agent copies the policy's weights when it is made: an agent of
        a model that goes on training plays the weights of then. A frame-stacked policy
        remembers the observations of this agent's previous decisions in the game (the
        :mod:`cardenv.envs.frame_stack` layout), cleared by ``reset``."""
        super().__init__(info, rng)
        trained_on = {}
        if isinstance(model, str):
            recorded = model_metadata(model) or {}
            guide, frame_stack = recorded.get("guide"), recorded.get("frame_stack", 1)
            trained_on = recorded.get("env_kwargs") or {}
        where = model if isinstance(model, str) else "the model"
        # Pieces its training env added that this one lacks, worked out here from the
        # observation (say, meld hints): the policy sees what it was trained on.
        missing = derived_pieces_missing(info, trained_on)
        if missing and guide:
            options = ", ".join(f"{option}={trained_on[option]!r}" for option, _ in missing)
            raise ValueError(f"{where} was trained with {options} and a guide: play it in an env with {options}")
        self.derived = tuple(derive for _, derive in missing)
        if guide and agent_factory is None:
            raise ValueError(f"{where} was trained with the guide {guide!r}: it needs an agent_factory to build "
                             f"the guide (cardenv.agents.make_agent builds every agent spec)")
        self.model = load_model(model) if isinstance(model, str) else model
        self.frame_stack = validation.integer("frame_stack", frame_stack, 1)
        _check_model_fits(self.model, info, where, guide, self.frame_stack, self.derived)
        self.deterministic = deterministic
        # Trained under memory="none", it sees that observation in any env (Agent.memory).
        self.memory = "none" if trained_on.get("memory") == "none" else None
        # The reward its value function estimates (a model object brings no record: the
        # env's defaults are assumed).
        self.reward_mode = trained_on.get("reward_mode", DEFAULT_REWARD_MODE)
        self.reward_scale = float(trained_on.get("reward_scale", DEFAULT_REWARD_SCALE))
        # The guide shares this agent's generator, so reseeding the agent reseeds it.
        self.guide = Guide(guide, agent_factory(guide, info, rng)) if guide else None
        self.actor = NumpyActor.from_model(self.model)
        self.critic = NumpyCritic.from_model(self.model)
        self.frames = None
        self.last_probabilities: np.ndarray | None = None  # of the last choice (a search reads them)
        if self.frame_stack > 1:
            frame_space = policy_observation_space(info, guided=self.guide is not None)
            if self.derived:  # the frames hold the appended pieces too (padded with zeros, as in training)
                derived_size = _derived_size(info, self.derived)
                frame_space = spaces.Box(np.concatenate([frame_space.low, np.zeros(derived_size, np.float32)]),
                                         np.concatenate([frame_space.high, np.full(derived_size, np.inf, np.float32)]),
                                         dtype=np.float32)
            self.frames = FrameHistory(frame_space, self.frame_stack)

    def reset(self) -> None:
        super().reset()
        if self.guide is not None:
            self.guide.reset()
        if self.frames is not None:
            self.frames.clear()

    def policy_vector(self, observation, state, seat) -> np.ndarray:
        """The observation vector the policy reads now (guided, not yet stacked)."""
        if self.derived:
            vector = observation["observation"]
            return np.concatenate([vector, *(derive(self.info.layout, vector) for derive in self.derived)])
        return observation["observation"] if self.guide is None else self.guide.observe(observation, state, seat)

    def _probabilities_of(self, vector: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.frames is not None:
            vector = self.frames.stacked(vector)
        if self.actor is None:
            return masked_probabilities(self.model, vector, mask)
        return self.actor.probabilities(vector, mask)

    def probabilities(self, observation, state, seat) -> np.ndarray:
        """The policy's probability of each action (zero where the mask forbids it). A
        frame-stacked policy reads it with the frames of this agent's past decisions."""
        return self._probabilities_of(self.policy_vector(observation, state, seat), observation["action_mask"])

    def value(self, observation, state, seat) -> float:
        """The policy's value estimate of ``observation`` (the rewards still to come in the
        game, discounted), in the units of the rewards it was trained on (``reward_mode``,
        ``reward_scale``). A frame-stacked policy reads it with this agent's past frames."""
        vector = self.policy_vector(observation, state, seat)
        if self.frames is not None:
            vector = self.frames.stacked(vector)
        return predicted_value(self.model, vector) if self.critic is None else self.critic.value(vector)

    def sampled_distribution(self, observation, state, seat) -> np.ndarray | None:
        """Its probabilities where it samples them and keeps no frames (see :class:`Agent`)."""
        if self.deterministic or self.frames is not None:
            return None
        return self.probabilities(observation, state, seat)

    def choose(self, observation, state, seat) -> int:
        vector = self.policy_vector(observation, state, seat)
        probs = self.last_probabilities = self._probabilities_of(vector, observation["action_mask"])
        if self.frames is not None:
            self.frames.commit(vector)  # a decision: its observation joins the stack
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs))


class PolicyPoolAgent(Agent):
    """Plays a snapshot drawn uniformly from the newest ``pool_size`` snapshots, one
    draw per game; uniform random until the first snapshot arrives. ``agent_factory``
    builds the guides of guided snapshots."""

    name = "selfplay"

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, pool_size: int = 5,
                 agent_factory: AgentFactory | None = None):
        super().__init__(info, rng)
        self.pool_size = pool_size
        self.agent_factory = agent_factory
        self.snapshots: list[str] = []
        self._models: OrderedDict[str, PPOAgent] = OrderedDict()
        self._current = None

    def add_snapshot(self, path: str) -> None:
        self.snapshots.append(path)
        self.snapshots = self.snapshots[-self.pool_size:]
        for stale in [p for p in self._models if p not in self.snapshots]:
            del self._models[stale]

    def reset(self) -> None:
        super().reset()
        if self.snapshots:
            path = self.snapshots[int(self.rng.integers(len(self.snapshots)))]
            if path not in self._models:
                self._models[path] = PPOAgent(self.info, self.rng, path, deterministic=False,
                                              agent_factory=self.agent_factory)
            self._current = self._models[path]
            self._current.reset()

    def choose(self, observation, state, seat) -> int:
        if self._current is None:
            return uniform_choice(observation["action_mask"], self.rng)
        return self._current.choose(observation, state, seat)
