#!/usr/bin/env bash
# Redis Cluster figures for the README, each with the command that made it:
#   1. decisions/s on one node vs on a private 3+3 cluster, same client count
#      (ratelab-cli bench --backend redis-lua --path store --concurrency C: one
#      store per thread, so both sides run the same code path), alternating;
#   2. the failover scenario (resources/scenarios/failover.json) without and
#      with --wait-replicas 1: lost writes, admitted over the limit, time to
#      serve again, decisions by the failure policy;
#   3. the latency of a decision on a healthy cluster with and without WAIT 1.
# One node is a private redis-server on a free loopback port (never :6379);
# the cluster is `--redis cluster` (private, stopped on exit).
# Usage: scripts/bench-cluster.sh [seconds per bench, default 3] [rounds, default 2]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3}
rounds=${2:-2}
source scripts/lib/bench-common.sh
bench_cli bench-cluster
bench_require bench-cluster "scripts/install-deps.sh" python3 redis-server redis-cli
bench_private_redis

echo "# $(redis-server --version | cut -d' ' -f1-3), $(nproc) cores; load average: $(bench_load)"
conc=4
bench() {  # $1 = --redis value; prints decisions/s and per-master figures
  "$cli" bench --backend redis-lua --path store --concurrency "$conc" --duration-ms "$((secs * 1000))" \
    --redis "$1" --json 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]
masters = ", ".join("%s %d/s" % (m["node"], m["decisions_per_s"]) for m in r.get("masters", []))
print("%d decisions/s, errors %d%s" % (r["decisions_per_s"], r["errors"], ("; per master: " + masters) if masters else ""))'
}
echo "## 1. ratelab-cli bench --backend redis-lua --path store --concurrency $conc --duration-ms $((secs * 1000)) --redis X"
for round in $(seq "$rounds"); do
  echo "round $round one node  (redis://127.0.0.1:$port): $(bench "redis://127.0.0.1:$port")"
  echo "round $round cluster   (--redis cluster, 3+3):   $(bench cluster)"
done

failover() {  # $@ = extra flags
  "$cli" run --scenario resources/scenarios/failover.json --json "$@" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin); r = d["runs"][0]; f = d["failover"]
print("admitted %d (limit %d, max in window %d, overshoot %.2fx), lost writes %d, served again after %s ms, "
      "policy decisions %d, p50 %d us, p99 %d us" % (r["admitted"], r["limit"], r["max_admitted_in_window"],
      r["overshoot"], f["lost_writes"], f["unserved_ms"], f["errors_during_failover"],
      r["latency_us"]["p50"], r["latency_us"]["p99"]))'
}
echo "## 2. ratelab-cli run --scenario resources/scenarios/failover.json [--wait-replicas 1 --wait-timeout-ms 20]"
for round in $(seq "$rounds"); do
  echo "round $round no WAIT:  $(failover)"
  echo "round $round WAIT 1:   $(failover --wait-replicas 1 --wait-timeout-ms 20)"
done

latency() {  # $@ = extra flags
  "$cli" run --redis cluster --backend redis-lua --clock server --algorithm token_bucket --limit 1000000 \
    --window-ms 1000 --pattern constant --rate 500 --duration-ms 4000 --clients 20 --concurrency 4 --json "$@" \
    2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]; l = r["latency_us"]
print("p50 %d us, p90 %d us, p99 %d us, max %d us, errors %d" % (l["p50"], l["p90"], l["p99"], l["max"], r["errors"]))'
}
echo "## 3. ratelab-cli run --redis cluster --backend redis-lua --clock server --algorithm token_bucket --limit 1000000 --window-ms 1000 --pattern constant --rate 500 --duration-ms 4000 --clients 20 --concurrency 4 [--wait-replicas 1]"
for round in $(seq "$rounds"); do
  echo "round $round no WAIT:  $(latency)"
  echo "round $round WAIT 1:   $(latency --wait-replicas 1)"
done
echo "# load after: $(bench_load)"
