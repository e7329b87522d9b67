#!/usr/bin/env bash
# Measures trace parsing and tune sweeps on a synthetic 1M-line combined log
# (scripts/gen-access-log.py, seeded): parse = `tune` JSON read_ms (reading,
# detecting, interning keys, spreading one-second times) on one thread;
# sweep = 1M requests x 100 grid points x 1 algorithm on 2 threads.
# Prints wall and CPU seconds, versions and the machine's load (the machine is shared:
# wall time under load overstates the cost; CPU time does not).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/bench-common.sh
build_dir=${RATELAB_BUILD_DIR:-build}
cli="$build_dir/app/cli/ratelab-cli"
[[ -x "$cli" ]] || RATELAB_BUILD_DIR="$build_dir" scripts/build.sh
lines=${LINES_N:-1000000}
log=${TRACE_LOG:-/tmp/ratelab-bench-${lines}.log}
[[ -s "$log" ]] || python3 scripts/gen-access-log.py "$lines" "$log"
runs=${RUNS:-3}
echo "bench-trace: $(uname -srm), $(nproc) cores, $(g++ --version | head -1), zlib $(python3 -c 'import zlib; print(zlib.ZLIB_RUNTIME_VERSION)')"
echo "bench-trace: log $log ($(wc -l <"$log") lines, $(du -h "$log" | cut -f1))"
measure() {  # label, command...: prints wall, user+sys CPU and the JSON figure
  local label=$1; shift
  local out tm
  tm=$( { /usr/bin/time -f "%e %U %S" "$@" >/tmp/ratelab-bench-out.json; } 2>&1 | tail -1)
  read -r wall user sys <<<"$tm"
  local read_ms sweep_ms
  read_ms=$(python3 -c 'import json;d=json.load(open("/tmp/ratelab-bench-out.json"));print(d["trace"]["read_ms"])')
  sweep_ms=$(python3 -c 'import json;d=json.load(open("/tmp/ratelab-bench-out.json"));print(d["elapsed_ms"], d["decisions"])')
  printf '%-8s wall %6.2f s  cpu %6.2f s  read %8.1f ms  sweep %s ms / decisions  | load %s\n' \
    "$label" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$read_ms" "$sweep_ms" "$(bench_load)"
}
for i in $(seq "$runs"); do
  measure parse "$cli" tune --trace "$log" --limit 100 --threads 1 --json
  measure tune100 "$cli" tune --trace "$log" --algorithm token_bucket --limit 5:500:5 --threads 2 --json
done
