"""The environments of every ruleset, made from its registry record: the PettingZoo AEC and
parallel envs (:mod:`~cardenv.envs.base`), what an agent may know of a ruleset
(:mod:`~cardenv.envs.info`) and frame stacks that keep the action mask
(:mod:`~cardenv.envs.frame_stack`)."""
