"""A network exported from any framework (torch.onnx, tf2onnx, jax2onnx, ...) as an agent:
the spec ``onnx:FILE`` (or ``onnx:FILE#sample``), run by onnxruntime (the ``onnx`` extra).

The contract:

- input ``observation``: float32 ``[batch, observation size]`` (the env's observation
  vector, ``info.layout.size`` entries; batch 1 or a free dimension);
- optional input ``action_mask``: ``[batch, actions]``, bool or float (1 legal, 0 not);
  the network may use it, cardenv applies the mask anyway;
- its first output: logits ``[batch, actions]`` (any real numbers; a softmax output
  works as well, its argmax is the same).

cardenv masks the logits and plays the most likely legal action; ``#sample`` samples
from the softmax over the legal actions with the agent's seeded generator. The sizes
are checked against the ruleset when the agent is made (one-line ValueError naming the
file, the sizes found and those expected).
"""

from __future__ import annotations

import json

import numpy as np

from cardenv.agents.base import SAMPLE
from cardenv.agents.ppo import _derived_size, derived_pieces_missing
from cardenv.core.agent import Agent, RulesetInfo
from cardenv.core.extras import require_extra

OBSERVATION_INPUT = "observation"
MASK_INPUT = "action_mask"
RULESET_KEY = "cardenv.ruleset"
"""Metadata of an exported network (:func:`cardenv.train.export.export_onnx`): the ruleset it plays."""
ENV_KWARGS_KEY = "cardenv.env_kwargs"
"""Metadata: the env options (JSON) its policy was trained with; pieces they add that the
env lacks and that are worked out from the rest (a ruleset's ``derived_pieces``, say
``match_hints``) are appended by the agent, as ``ppo:FILE`` does."""


def _dimension(dim) -> int | None:
    return dim if isinstance(dim, int) and dim > 0 else None  # a name or None: free


def _load_session(path: str):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1  # one decision at a time: more threads only wait
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    except Exception as error:  # noqa: BLE001 - onnxruntime's own exception types
        detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"onnx model {path!r} cannot be loaded: {detail}") from None


class ONNXAgent(Agent):
    """Plays an ONNX network's most likely legal action (or samples it, ``sample=True``)."""

    name = "onnx"
    needs_recent_events = True

    def __init__(self, info: RulesetInfo, rng: np.random.Generator, path: str, sample: bool = False):
        super().__init__(info, rng)
        require_extra("onnx", f"agent 'onnx:{path}'")
        self.path = path
        self.sample = sample
        self.name = f"onnx:{path}" + (f"#{SAMPLE}" if sample else "")
        self.session = _load_session(path)
        self.derived = self._derived_pieces(info)
        self._observation_size = info.layout.size + _derived_size(info, self.derived)
        self._actions = len(info.action_table)
        self._check_signature(info)
        self._observation_batch = np.zeros((1, self._observation_size), dtype=np.float32)
        self._feed = {OBSERVATION_INPUT: self._observation_batch}
        self._check_output(info)

    def __getstate__(self) -> dict:
        """Copies and pickles (a search may copy its players) reload the network from its file."""
        return {**self.__dict__, "session": None, "_feed": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.session = _load_session(self.path)
        self._feed = {OBSERVATION_INPUT: self._observation_batch}

    def _derived_pieces(self, info: RulesetInfo) -> tuple:
        metadata = self.session.get_modelmeta().custom_metadata_map
        exported_for = metadata.get(RULESET_KEY)
        if exported_for and exported_for != info.name:
            raise ValueError(f"onnx model {self.path!r} was exported for {exported_for}, not {info.name}")
        try:
            trained_on = json.loads(metadata.get(ENV_KWARGS_KEY) or "{}")
        except ValueError:
            raise ValueError(f"onnx model {self.path!r}: its {ENV_KWARGS_KEY} metadata is not JSON") from None
        return tuple(derive for _, derive in derived_pieces_missing(info, trained_on))

    def _vector(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The vector the network reads: the observation, and the derived pieces it was trained with."""
        vector = observation["observation"]
        if self.derived:
            return np.concatenate([vector, *(derive(self.info.layout, vector) for derive in self.derived)])
        return vector

    def _expected(self, info: RulesetInfo) -> str:
        return f"{info.name} with {info.env_kwargs or 'default options'}"

    def _check_signature(self, info: RulesetInfo) -> None:
        inputs = {node.name: node for node in self.session.get_inputs()}
        where = f"onnx model {self.path!r}"
        if OBSERVATION_INPUT not in inputs:
            raise ValueError(f"{where} has no input named {OBSERVATION_INPUT!r} (its inputs: "
                             f"{', '.join(inputs) or 'none'}); cardenv feeds 'observation' float32 [batch, "
                             f"{self._observation_size}] and optionally 'action_mask' [batch, {self._actions}]")
        unknown = [name for name in inputs if name not in (OBSERVATION_INPUT, MASK_INPUT)]
        if unknown:
            raise ValueError(f"{where} has inputs cardenv does not feed: {', '.join(unknown)} (it feeds "
                             f"'observation' and, if the network takes it, 'action_mask')")
        observation = inputs[OBSERVATION_INPUT]
        if observation.type != "tensor(float)":
            raise ValueError(f"{where} takes 'observation' of type {observation.type}; cardenv feeds float32 "
                             f"(tensor(float))")
        shape = list(observation.shape)
        if len(shape) != 2 or _dimension(shape[1]) not in (None, self._observation_size) or \
                _dimension(shape[0]) not in (None, 1):
            raise ValueError(f"{where} takes observations of shape {shape}, but {self._expected(info)} has "
                             f"observations of size {self._observation_size}: expected [batch, "
                             f"{self._observation_size}]")
        self._mask_type = None
        if MASK_INPUT in inputs:
            mask = inputs[MASK_INPUT]
            kinds = {"tensor(bool)": np.bool_, "tensor(float)": np.float32, "tensor(int8)": np.int8,
                     "tensor(int32)": np.int32, "tensor(int64)": np.int64}
            if mask.type not in kinds:
                raise ValueError(f"{where} takes 'action_mask' of type {mask.type}; cardenv feeds bool or float")
            mask_shape = list(mask.shape)
            if len(mask_shape) != 2 or _dimension(mask_shape[1]) not in (None, self._actions):
                raise ValueError(f"{where} takes an action mask of shape {mask_shape}, but {self._expected(info)} "
                                 f"has {self._actions} actions: expected [batch, {self._actions}]")
            self._mask_type = kinds[mask.type]

    def _check_output(self, info: RulesetInfo) -> None:
        """Runs the network once on a blank observation: its output must be [1, actions]."""
        mask = np.ones(self._actions, dtype=np.int8)
        try:
            logits = self._run(np.zeros(self._observation_size, dtype=np.float32), mask)
        except Exception as error:  # noqa: BLE001 - onnxruntime's: a size the graph's inside does not accept
            detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ValueError(f"onnx model {self.path!r} fails on an observation of size {self._observation_size} "
                             f"({self._expected(info)}): {detail}") from None
        if logits.shape != (self._actions,):
            raise ValueError(f"onnx model {self.path!r} outputs {list(logits.shape)} values per observation, but "
                             f"{self._expected(info)} has {self._actions} actions: expected logits [batch, "
                             f"{self._actions}]")

    def _run(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self._feed[OBSERVATION_INPUT] = np.asarray(observation, dtype=np.float32).reshape(1, -1)
        if self._mask_type is not None:
            self._feed[MASK_INPUT] = (mask > 0).astype(self._mask_type).reshape(1, -1)
        output = self.session.run(None, self._feed)[0]
        return np.asarray(output).reshape(-1) if output.ndim == 2 and output.shape[0] == 1 else np.asarray(output)

    def logits(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The network's output for one observation (unmasked)."""
        return self._run(self._vector(observation), observation["action_mask"])

    def probabilities(self, observation, state, seat) -> np.ndarray:
        """The softmax of the logits over the legal actions (zero elsewhere), in float64:
        what a search uses as its prior."""
        mask = observation["action_mask"]
        logits = self.logits(observation).astype(np.float64)
        legal = mask > 0
        if not legal.any():
            raise ValueError("no legal action to choose from")
        logits = np.where(legal, logits - logits[legal].max(), -np.inf)
        weights = np.exp(logits)
        return weights / weights.sum()

    def sampled_distribution(self, observation, state, seat) -> np.ndarray | None:
        return self.probabilities(observation, state, seat) if self.sample else None

    def choose(self, observation, state, seat) -> int:
        if self.sample:
            probs = self.probabilities(observation, state, seat)
            return int(self.rng.choice(len(probs), p=probs))
        mask = observation["action_mask"]
        logits = self.logits(observation)
        return int(np.argmax(np.where(mask > 0, logits, -np.inf)))
