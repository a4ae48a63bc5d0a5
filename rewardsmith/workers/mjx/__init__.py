"""The MJX training backend (the `mjx` extra: jax, mujoco-mjx): Gymnasium's MuJoCo envs stepped in JAX.

- `envs`: Gymnasium's v5 locomotion envs on MJX (their XML, frame skip, observations, reset noise, ends).
"""
