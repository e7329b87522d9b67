# Sourced by the scripts/bench-*.sh benchmarks: the built ratelab-cli, the
# tools a benchmark needs, and a private redis-server on a free loopback port
# that is stopped (and its directory removed) when the script exits.

# Sets $build and $cli, or exits 2 naming what is missing. $1: the script's name.
bench_cli() {
  build=${RATELAB_BUILD_DIR:-build}
  cli="$build/app/cli/ratelab-cli"
  [[ -x "$cli" ]] || { echo "$1: $cli not built (run scripts/build.sh or set RATELAB_BUILD_DIR)" >&2; exit 2; }
}

# Exits 2 naming the first missing command. $1: the script's name, $2: how to install, then the commands.
bench_require() {
  local name=$1 hint=$2 tool
  shift 2
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$name: $tool not installed ($hint)" >&2; exit 2; }
  done
}

# A free TCP port on 127.0.0.1.
bench_free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Starts redis-server on a free port in a temp dir: sets $dir, $port, $pid and
# an EXIT trap that stops it; returns once it answers PING.
bench_private_redis() {
  dir=$(mktemp -d)
  port=$(bench_free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no \
    --logfile "$dir/redis.log" &
  pid=$!
  trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT INT TERM
  for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "redis-server did not answer on 127.0.0.1:$port (log: $dir/redis.log)" >&2
  exit 3
}

# The median of the numbers given as arguments (empty ones skipped; an even count: the mean of the middle two).
bench_median() {
  printf '%s\n' "$@" | grep -v '^$' | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The machine's load averages now (1, 5 and 15 minutes), as uptime prints them.
bench_load() { uptime | sed 's/.*load average: //'; }
