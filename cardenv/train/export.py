"""Export a policy to ONNX, for the agent spec ``onnx:FILE`` (:mod:`cardenv.agents.onnx_policy`)
or any other runtime: :func:`export_onnx` (needs torch and the ``onnx-export`` extra).

The exported network takes ``observation`` float32 ``[batch, observation size]`` (the
env's observation vector, as the onnx agent feeds it) and gives ``logits`` ``[batch,
actions]``; cardenv applies the mask. A MaskablePPO model (its file, or the model
object) exports its actor: features extractor, policy MLP and action layer, the ones
``ppo:FILE`` plays. A plain ``torch.nn.Module`` from observations to logits exports as it is.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import warnings

from cardenv.core.extras import require_extra

DEFAULT_OPSET = 18


def _ppo_actor(model, where: str, info, guide, frame_stack: int, trained_on: dict):
    """The actor of a MaskablePPO model as a torch module from the flat observation to logits."""
    from torch import nn

    from cardenv.agents.ppo import _check_model_fits, derived_pieces_missing

    if guide or frame_stack > 1:
        kind = f"guided by {guide!r}" if guide else f"a {frame_stack}-frame stack"
        raise ValueError(f"{where} reads more than the env's observation ({kind}): the onnx agent feeds the "
                         f"observation alone, export a policy trained without a guide or frame stack")
    if getattr(model.policy, "guide_weight", None) is not None:
        raise ValueError(f"{where} is a guided policy: the onnx agent feeds the observation alone")
    derived = tuple(derive for _, derive in derived_pieces_missing(info, trained_on))
    _check_model_fits(model, info, where, None, 1, derived)
    policy = model.policy

    class Actor(nn.Module):
        def __init__(self):
            super().__init__()
            self.policy = policy

        def forward(self, observation):
            features = self.policy.extract_features(observation, self.policy.pi_features_extractor)
            return self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))

    return Actor()


def export_onnx(model_or_path, path: str | os.PathLike, ruleset: str, env_kwargs: dict | None = None,
                opset: int = DEFAULT_OPSET) -> str:
    """Write ``model_or_path`` as an ONNX network to ``path`` and return the path.

    ``model_or_path``: a MaskablePPO model file (``runs/RULESET/final_model.zip``), a
    shipped policy's name (``"pretrained"``), a loaded MaskablePPO model, or a
    ``torch.nn.Module`` from observations ``[batch, observation size]`` to logits
    ``[batch, actions]``. ``ruleset`` and ``env_kwargs`` give the sizes, checked (a
    one-line ValueError for a model made for other ones). The batch dimension is free."""
    require_extra("train", "export_onnx")
    require_extra("onnx-export", "export_onnx")
    import torch
    from torch import nn

    from cardenv.agents.onnx_policy import ENV_KWARGS_KEY, RULESET_KEY
    from cardenv.agents.ppo import _derived_size, derived_pieces_missing, load_model, model_metadata
    from cardenv.agents.pretrained import SHIPPED_VARIANTS, pretrained_model_path
    from cardenv.envs.info import ruleset_info

    info = ruleset_info(ruleset, **(env_kwargs or {}))
    trained_on: dict = {}  # a model file's recorded env options (a loaded model's are those of the env)
    if isinstance(model_or_path, (str, os.PathLike)):
        source = str(model_or_path)
        if source in SHIPPED_VARIANTS:
            source = pretrained_model_path(ruleset, source)
        if not os.path.isfile(source):
            raise ValueError(f"model file {source!r} does not exist")
        recorded = model_metadata(source) or {}
        if recorded.get("ruleset") not in (None, ruleset):
            raise ValueError(f"{source} was trained on {recorded['ruleset']}, not {ruleset}")
        trained_on = recorded.get("env_kwargs") or {}
        module = _ppo_actor(load_model(source), source, info, recorded.get("guide"), recorded.get("frame_stack", 1),
                            trained_on)
    elif isinstance(model_or_path, nn.Module):
        module = model_or_path
    elif hasattr(model_or_path, "policy") and hasattr(model_or_path, "observation_space"):
        module = _ppo_actor(model_or_path, "the model", info, None, 1, trained_on)
    else:
        raise TypeError(f"export_onnx takes a MaskablePPO model or its file, or a torch.nn.Module; got "
                        f"{type(model_or_path).__name__}")
    derived = tuple(derive for _, derive in derived_pieces_missing(info, trained_on))
    size = info.layout.size + _derived_size(info, derived)
    module = module.cpu().eval()
    example = torch.zeros((2, size), dtype=torch.float32)
    with torch.no_grad():
        try:
            out = module(example)
        except Exception as error:  # noqa: BLE001 - the user's module: one line naming the sizes
            raise ValueError(f"the module does not take observations [batch, {size}] of {ruleset}: "
                             f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}") from None
    if out.ndim != 2 or tuple(out.shape) != (2, len(info.action_table)):
        raise ValueError(f"the module maps observations [batch, {size}] to {list(out.shape[1:])}, but "
                         f"{ruleset} has {len(info.action_table)} actions: expected logits [batch, "
                         f"{len(info.action_table)}]")
    path = os.fspath(path)
    batch = torch.export.Dim("batch")
    # The exporter's notes (optional torchvision ops skipped, deprecations inside torch) are not the user's.
    exporter_log = logging.getLogger("torch.onnx")
    level = exporter_log.level
    exporter_log.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            torch.onnx.export(module, (example,), path, input_names=["observation"], output_names=["logits"],
                              opset_version=opset, dynamo=True, dynamic_shapes=({0: batch},), external_data=False,
                              verbose=False)
    finally:
        exporter_log.setLevel(level)
    import onnx

    network = onnx.load(path)
    metadata = {RULESET_KEY: ruleset, ENV_KWARGS_KEY: json.dumps(trained_on, sort_keys=True)}
    for key, value in metadata.items():
        network.metadata_props.add(key=key, value=value)
    onnx.save(network, path)
    return path
