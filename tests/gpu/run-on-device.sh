#!/usr/bin/env bash
# The GPU checks in one run, on a machine with an AMD GPU and ROCm: configures
# and builds tunekit with the HIP device and engines, runs the GPU tests
# (tests/gpu, the HIP device's unit tests and the no-device CLI tests, which
# skip there), autotunes every sample graph on the GPU and prints each HIP
# engine's median time per shape beside the CPU's best, all within 8 minutes.
#   tests/gpu/run-on-device.sh [BUILD_DIR]        (default: build/gpu)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/gpu}"
start=$SECONDS
say() { printf '\n== %s (%d s)\n' "$*" $((SECONDS - start)); }

say "devices"
command -v rocminfo >/dev/null && rocminfo | grep -E '^\s+Name:\s+gfx' | sort -u || true
arch=$(rocminfo 2>/dev/null | grep -oE 'gfx[0-9a-f]+' | head -n1 || true)
archs="gfx90a;gfx1030"
if [ -n "$arch" ] && [[ ";$archs;" != *";$arch;"* ]]; then archs="$archs;$arch"; fi

say "configure and build for $archs"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTUNEKIT_REQUIRE_HIP=ON \
  -DTUNEKIT_HIP_ARCHITECTURES="$archs" -DTUNEKIT_BUILD_BENCHMARKS=OFF -DTUNEKIT_BUILD_PYTHON=OFF >/dev/null
cmake --build "$build" --target tunekit_tool tunekit_hip_engines tunekit_hip_engines_tests tunekit_platform_tests \
  tunekit_cli_tests
tool="$build/bin/tunekit"
plugin=$(find "$build" -name 'libtunekit_hip_engines.so' | head -n1)
"$tool" describe | sed -n '/^devices/,$p'

say "GPU tests"
(cd "$build" && ctest -R 'HipEngines|HipDevice|DeviceCopies' --output-on-failure --timeout 240)

say "autotune the sample graphs on the GPU"
out="$build/gpu-tune"
mkdir -p "$out"
timeout 240 "$tool" tune examples/graphs/*.toml --device hip --plugin "$plugin" --output "$out/gpu.json" \
  --strategy run_until_stable --settle-timeout 0 --allow-incomplete --json >"$out/gpu-table.json"
timeout 120 "$tool" tune examples/graphs/matmul_bias_relu.toml examples/graphs/bert_base_mlp.toml \
  examples/graphs/resnet50_conv3x3.toml examples/graphs/reduction.toml --device cpu --output "$out/cpu.json" \
  --strategy fixed_average --iterations 5 --settle-timeout 0 --allow-incomplete --json >"$out/cpu-table.json" || true

say "each engine's median per shape (ms), the winner first; the CPU's best where it ran"
python3 - "$out/gpu-table.json" "$out/cpu-table.json" <<'PY'
import json, sys
gpu = json.load(open(sys.argv[1]))
try:
    cpu = {(s["graph"], s.get("shape_set", "")): s for s in json.load(open(sys.argv[2]))}
except Exception:
    cpu = {}
for shape in gpu:
    key = (shape["graph"], shape.get("shape_set", ""))
    ok = [c for c in shape["candidates"] if c.get("succeeded")]
    cpu_best = min((c["median_time_ms"] for c in cpu.get(key, {}).get("candidates", []) if c.get("succeeded")), default=None)
    print(f"{shape['graph']} [{shape.get('shape_set', '')}]" + (f"  cpu best {cpu_best:.4f}" if cpu_best else ""))
    for c in ok:
        print(f"    {c['engine_name']:34} {c.get('knobs', '')!s:60.60} {c['median_ms']:10.4f}")
    for c in shape["candidates"]:
        if not c.get("succeeded"):
            print(f"    {c['engine_name']:34} failed: {c.get('error_message', '')[:90]}")
PY
say "done"
