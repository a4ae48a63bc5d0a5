#!/bin/bash
# The GPU checks as one prepared script, for a machine lent for a few minutes (docs/mjx.md, "On a GPU").
#
#   bench/gpu_check.sh prepare    # here, with pip: the wheels a bare CUDA image with JAX lacks, into .whl/
#   bench/gpu_check.sh run        # there (carry .whl/): install them and rewardsmith, then train through the product's route
#   bench/gpu_check.sh arms       # there: several trainings on the one GPU at once (GPU_ARMS="example:0 alive:0 ...")
#
# `run` writes everything it prints to $OUT/gpu_check.log (or ./gpu_check.log) and each trained hopper-hop
# folder to $OUT/hopper_hop_<steps>.tgz; only when a training fails does it run the sandbox probe
# (bench/gpu_sandbox.py), to say which lock-down rule stopped it. Each step has its own time limit.
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
        # the installed version; else the mjx extra's pin in pyproject.toml; else PyPI's newest
        local version_here
        version_here=$("$python" -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p')
        [ -n "$version_here" ] || version_here=$(grep -o "\"$name==[^\"]*\"" pyproject.toml | head -1 | tr -d '"' | cut -d= -f3)
        pins+=("$name${version_here:+==$version_here}")
    done
    "$python" -m pip download -q --no-deps --only-binary=:all: --python-version "$version" --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        -d "$WHEELS" "${pins[@]}"
    # libseccomp's shared library, for an image without it (unpacked there, not installed)
    [ -f "$WHEELS"/libseccomp2.deb ] || (cd "$WHEELS" && apt-get download libseccomp2 && mv libseccomp2_*.deb libseccomp2.deb)
    du -sh "$WHEELS"
}

setup() {
        echo "=== setup $(date +%T)"
        nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
        nproc
        # seccomp needs libseccomp's shared library, which a bare CUDA image may lack
        if ! ldconfig -p | grep -q libseccomp.so.2 && [ -f "$WHEELS"/libseccomp2.deb ]; then
            mkdir -p /tmp/seccomp && dpkg -x "$WHEELS"/libseccomp2.deb /tmp/seccomp
            echo /tmp/seccomp/usr/lib/x86_64-linux-gnu >/etc/ld.so.conf.d/seccomp.conf && ldconfig
            echo "libseccomp carried"
        fi
        "$python" -m pip install -q --no-index --no-deps --no-compile "$WHEELS"/*.whl
        "$python" -m pip install -q --no-index --no-deps --no-build-isolation .
        "$python" -c "import jax, mujoco; print('jax', jax.__version__, jax.devices(), 'mujoco', mujoco.__version__)"
        timeout 60 "$python" -m rewardsmith doctor | grep -iE "landlock|seccomp|cgroup|uid|rlimit|gpu|backend"
}

run() {
    local out=${OUT:-.} python=${PYTHON:-python3}
    export PYTHONUNBUFFERED=1 REWARDSMITH_ALLOW_UID0=1
    {
        setup
        # the product's route, the real test: sandbox, exported reward, Brax PPO on the GPU, the trusted CPU scorer
        for steps in ${GPU_CHECK_STEPS:-2200000}; do
            echo "=== train hopper-hop on MJX, $steps steps $(date +%T)"
            rm -rf "/tmp/hopper_hop_$steps"  # a warm machine keeps /tmp, and `train --out` never writes over files
            local started=$SECONDS
            timeout "${GPU_TRAIN_TIMEOUT:-360}" "$python" -m rewardsmith train hopper-hop \
                envs/examples/hopper_hop.py --backend mjx --timesteps "$steps" --out "/tmp/hopper_hop_$steps"
            local rc=$?
            echo "wall $((SECONDS - started)) s, rc $rc"
            tar czf "$out/hopper_hop_$steps.tgz" -C /tmp "hopper_hop_$steps"
            if [ $rc -ne 0 ]; then
                echo "=== training failed (rc $rc): sandbox probe $(date +%T)"
                timeout 120 "$python" bench/gpu_sandbox.py --json "$out/gpu_sandbox.json" --timeout 110
                break
            fi
        done
        echo "=== done $(date +%T)"
    } 2>&1 | tee "$out/gpu_check.log"
}

# Several hopper-hop trainings at once on the one GPU, as a search's workers share it (each JAX gets its share of
# the memory, `gpu_memory_fraction`): ARM:SEED pairs, ARM "example" (the task's example) or a calibration weak
# reference ("alive", "effort"). Each summary and learning curve comes back; nvidia-smi samples the load.
arms() {
    local out=${OUT:-.} python=${PYTHON:-python3} jobs=(${GPU_ARMS:-example:0 alive:0})
    local steps=${GPU_CHECK_STEPS:-2200000}
    export PYTHONUNBUFFERED=1 REWARDSMITH_ALLOW_UID0=1
    export XLA_PYTHON_CLIENT_MEM_FRACTION=$(awk "BEGIN {printf \"%.3f\", 0.88 / ${#jobs[@]}}")
    {
        "$python" -c "import rewardsmith" 2>/dev/null || setup  # a warm machine keeps what the last call installed
        nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader -l 15 >"$out/smi.log" 2>&1 &
        local smi=$! started=$SECONDS pids=() job arm seed reward
        echo "=== ${#jobs[@]} trainings at once, $steps steps each $(date +%T)"
        for job in "${jobs[@]}"; do
            arm=${job%:*} seed=${job#*:} reward=envs/examples/hopper_hop.py
            if [ "$arm" != example ]; then
                reward=/tmp/$arm.py
                "$python" -c "from rewardsmith.search.calibration import WEAK_REWARDS as W; open('$reward', 'w').write(W['$arm'])"
            fi
            rm -rf "/tmp/hh_${arm}_$seed"
            (
                timeout "${GPU_TRAIN_TIMEOUT:-420}" "$python" -m rewardsmith train hopper-hop "$reward" --backend mjx \
                    --timesteps "$steps" --seed "$seed" --out "/tmp/hh_${arm}_$seed" >"$out/train_${arm}_$seed.log" 2>&1
                echo "$arm seed $seed: rc $?, wall $((SECONDS - started)) s"
            ) &
            pids+=($!)
        done
        wait "${pids[@]}"
        kill "$smi"
        for job in "${jobs[@]}"; do
            arm=${job%:*} seed=${job#*:}
            grep -A3 "fitness" "$out/train_${arm}_$seed.log" | tail -2
            cp "/tmp/hh_${arm}_$seed/summary.json" "$out/summary_${arm}_$seed.json"
            cp "/tmp/hh_${arm}_$seed/metrics.jsonl" "$out/metrics_${arm}_$seed.jsonl"
        done
        echo "=== done $(date +%T)"
    } 2>&1 | tee "$out/gpu_arms.log"
}

case "${1:-}" in
prepare) prepare ;;
run) run ;;
arms) arms ;;
*) echo "usage: $0 prepare|run|arms" >&2 && exit 2 ;;
esac
