"""The MJX training backend's parts (the `mjx` extra: jax, mujoco-mjx); `workers.backends.mjx` drives them.

- `envs`: Gymnasium's v5 locomotion envs on MJX (their XML, frame skip, observations, reset noise, ends).
- `physics`: MJX's step corrected where it departs from MuJoCo's (plane-capsule contact frames, RK4's last stage).
- `jax_state`: the State API over JAX arrays, and the numpy → jax.numpy mapping of a reward module.
- `reward_export`: the candidate's reward traced and exported (`jax.export`) in the locked-down worker.
- `ppo`: a compact PPO in JAX with SB3's `MlpPolicy` parameters; `rollout`: one jitted PPO iteration.
"""
