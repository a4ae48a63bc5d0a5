#!/bin/bash
# The GPU checks as one prepared script, for a machine lent for a few minutes (docs/mjx.md, "On a GPU").
#
#   bench/gpu_check.sh prepare    # here, with pip: the wheels a bare CUDA image with JAX lacks, into .whl/
#   bench/gpu_check.sh run        # there (carry .whl/): install them and rewardsmith, then probe, measure, train
#
# `run` writes everything it prints to $OUT/gpu_check.log (or ./gpu_check.log) and the trained hopper-hop run's
# folder to $OUT/hopper_hop.tgz. Each step has its own time limit, so one that hangs does not take the others.
set -u
cd "$(dirname "$0")/.."
WHEELS=.whl

prepare() {
    local python=${PYTHON:-.venv/bin/python} version=${WHEEL_PYTHON:-3.12}
    grep -qx "/$WHEELS/" .git/info/exclude 2>/dev/null || echo "/$WHEELS/" >>.git/info/exclude
    mkdir -p "$WHEELS"
    # what rewardsmith's training and evaluation import beyond JAX, torch, numpy and the CUDA image's usual stack
    local names=(mujoco mujoco-mjx brax gymnasium farama-notifications stable-baselines3 pydantic pydantic-core
        annotated-types typing-inspection pyseccomp trimesh jaxopt ml-collections glfw flatbuffers)
    local pins=()
    for name in "${names[@]}"; do
        pins+=("$name==$("$python" -m pip show "$name" | sed -n 's/^Version: //p')")
    done
    "$python" -m pip download -q --no-deps --only-binary=:all: --python-version "$version" --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        -d "$WHEELS" "${pins[@]}"
    du -sh "$WHEELS"
}

run() {
    local out=${OUT:-.} python=${PYTHON:-python3}
    export PYTHONUNBUFFERED=1 REWARDSMITH_ALLOW_UID0=1
    {
        echo "=== setup $(date +%T)"
        nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
        "$python" -m pip install -q --no-index --no-deps --no-compile "$WHEELS"/*.whl
        "$python" -m pip install -q --no-index --no-deps --no-build-isolation .
        "$python" -c "import jax, mujoco; print('jax', jax.__version__, jax.devices(), 'mujoco', mujoco.__version__)"
        echo "=== sandbox probe $(date +%T)"
        timeout 150 "$python" bench/gpu_sandbox.py --json "$out/gpu_sandbox.json" --timeout 140
        echo "=== train hopper-hop on MJX $(date +%T)"
        timeout 300 "$python" -m rewardsmith train hopper-hop envs/examples/hopper_hop.py --backend mjx \
            --timesteps 2200000 --out /tmp/hopper_hop
        tar czf "$out/hopper_hop.tgz" -C /tmp hopper_hop
        echo "=== physics $(date +%T)"
        timeout 120 "$python" bench/gpu.py --envs Hopper-v5 Ant-v5 --batches 8192 32768 --steps 50
        echo "=== done $(date +%T)"
    } 2>&1 | tee "$out/gpu_check.log"
}

case "${1:-}" in
prepare) prepare ;;
run) run ;;
*) echo "usage: $0 prepare|run" >&2 && exit 2 ;;
esac
