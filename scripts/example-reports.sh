#!/usr/bin/env bash
# Regenerates the example HTML reports under docs/reports/: `ratelab-cli run
# --report` (the boundary scenario), `ratelab-cli race --report` on a private
# redis-server (never :6379), `ratelab-cli tune --report` over a generated
# access log, and the window's File > Export report after the
# boundary preset (--report-out, under xvfb-run when it exists). Builds first
# if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${RATELAB_BUILD_DIR:-build}
cli="$build_dir/app/cli/ratelab-cli"
gui="$build_dir/app/gui/ratelab"
if [[ ! -x "$cli" || ! -x "$gui" ]]; then RATELAB_BUILD_DIR="$build_dir" scripts/build.sh; fi
out=docs/reports
mkdir -p "$out"
echo "example-reports: run (boundary scenario)"
"$cli" run --scenario resources/scenarios/boundary.json --report "$out/run-boundary.html" >/dev/null
echo "example-reports: race (private redis-server)"
"$cli" race --redis managed --rounds 100 --report "$out/race.html" >/dev/null
echo "example-reports: tune (a generated access log)"
log=$(mktemp --suffix=.log)
trap 'rm -f "$log"' EXIT
/usr/bin/python3 scripts/gen-access-log.py --clients 50 --seconds 60 --seed 7 20000 "$log"
"$cli" tune --trace "$log" --algorithm token_bucket,sliding_log --limit 50:600:50 --window-ms 1000,10000 \
  --report "$out/tune.html" >/dev/null
echo "example-reports: the window after the boundary preset"
if command -v xvfb-run >/dev/null 2>&1; then wrap=(xvfb-run -a); else wrap=(env QT_QPA_PLATFORM=offscreen); fi
"${wrap[@]}" "$gui" --preset boundary --managed-redis --autostart --size 1500x950 \
  --report-out "$out/window-boundary.html" --exit-after-ms 60000
ls -l "$out"
