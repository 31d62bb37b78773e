"""Training support: the single-seat Gymnasium view (torch-free) and MaskablePPO
training (imports torch, stable-baselines3 and sb3-contrib only when training runs)."""

from cardenv.train.single_seat import SingleSeatEnv

__all__ = ["SingleSeatEnv"]
