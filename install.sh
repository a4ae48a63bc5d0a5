#!/usr/bin/env bash
# Install rewardsmith and everything it needs into ./.venv (idempotent; fast when already installed).
set -euo pipefail
cd "$(dirname "$0")"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  # libosmesa6: MuJoCo offscreen rendering on CPU (policy videos); chromium: the report's browser test.
  missing=""
  for pkg in libosmesa6 chromium libseccomp2; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  fi
else
  echo "install.sh: not root; skipping Debian packages (libosmesa6 chromium libseccomp2): install them yourself" >&2
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
. .venv/bin/activate
if ! python -c "import torch" 2>/dev/null; then
  pip install -q torch==2.13.0   # the CPU build; a bare 'torch' would pull several GB of CUDA
fi
if ! python -c "import rewardsmith, llama_cpp, litellm, ray" 2>/dev/null || [ pyproject.toml -nt .venv/.installed ]; then
  CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF}" \
    pip install -q -e ".[test]"
  touch .venv/.installed
fi
