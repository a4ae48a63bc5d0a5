"""The MJX training backend's parts (the `mjx` extra: jax, mujoco-mjx, brax); `workers.backends.mjx` drives them.

- `envs`: Gymnasium's v5 locomotion envs on MJX (their XML, frame skip, observations, reset noise, ends).
- `physics`: MJX's step corrected where it departs from MuJoCo's (plane-capsule contact frames, RK4's last stage).
- `jax_state`: the State API over JAX arrays, and the numpy → jax.numpy mapping of a reward module.
- `reward_export`: the candidate's reward traced and exported (`jax.export`) in the locked-down worker.
- `rewrite`: a reward's value branches (`a if c else b`, `and`/`or`/`not`, chained comparisons) rewritten into
  `np.where` and logical operators when the source does not trace, used only if its values stay the same.
- `brax_ppo`: Brax's PPO over the batched envs with the exported reward, its networks shaped as SB3's `MlpPolicy`
  and renamed to its tensors for the evaluation worker.
"""
