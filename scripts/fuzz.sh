#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (build dir build-fuzz: only the fuzz
# targets and the Qt-free libraries they link, with ASan + UBSan) and runs each
# for a bounded time from its seed corpus (tests/fuzz/corpus/<target>, plus the
# shipped scenarios for the scenario reader). New inputs go to a temp dir, not
# the repo. Usage: scripts/fuzz.sh [seconds per target, default 20]
# Exits non-zero when a target crashes; the crashing input is kept under
# build-fuzz/crashes/ and named in the output.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
build=${RATELAB_FUZZ_BUILD_DIR:-build-fuzz}
if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz.sh: clang++ not found (install clang and libfuzzer-14-dev: scripts/install-deps.sh)" >&2
  exit 2
fi
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRATELAB_FUZZ=ON \
  -DRATELAB_BUILD_GUI=OFF -DRATELAB_BUILD_TESTS=OFF -DRATELAB_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
targets=(fuzz_http_request fuzz_scenario fuzz_redis_url fuzz_trace fuzz_trace_filter fuzz_cluster_reply
  fuzz_limit_headers fuzz_script_reply)
cmake --build "$build" --target "${targets[@]}" -j "$(nproc)"
mkdir -p "$build/crashes"
status=0
for t in "${targets[@]}"; do
  work=$(mktemp -d)
  seeds=("tests/fuzz/corpus/${t#fuzz_}")
  [[ $t == fuzz_scenario ]] && seeds+=(resources/scenarios)
  log="$build/$t.log"
  if "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
      -artifact_prefix="$build/crashes/$t-" -print_final_stats=1 "$work" "${seeds[@]}" >"$log" 2>&1; then
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    rss=$(grep -m1 -o 'stat::peak_rss_mb: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz.sh: $t: $runs executions in ${seconds} s, peak RSS $rss MB, no crash"
  else
    echo "fuzz.sh: $t: CRASH (see $log; input in $build/crashes/)" >&2
    # The whole finding: which limit (a malloc's size, or RSS), the stack's first frames, the input.
    grep -m12 -E 'ERROR|SUMMARY|malloc\(|#[0-9]+ 0x|Test unit written|peak_rss' "$log" >&2 || true
    tail -3 "$log" | grep -E '^#[0-9]+' >&2 || true
    status=1
  fi
  rm -rf "$work"
done
exit $status
