# Sourced by the scripts that need a real nginx (the benches, the limit_req
# demo, the screenshots): Debian's nginx from the one config template,
# resources/nginx/nginx.conf.in, as an unprivileged child on a free loopback
# port. Needs scripts/lib/bench-common.sh (bench_free_port) sourced first.

# The limit_req of the demo and the screenshots: per source address, rate=10r/s burst=5 nodelay.
nginx_demo_http='limit_req_zone $binary_remote_addr zone=z:1m rate=10r/s;'
nginx_demo_location='limit_req zone=z burst=5 nodelay; limit_req_status 429;'

# nginx_start DIR HTTP_DIRECTIVES LOCATION_DIRECTIVES: writes DIR/nginx.conf and
# DIR/www/index.html, starts nginx (as nobody when run as root) and returns once
# it accepts connections. Sets $nginx_port, $nginx_pid and $nginx_url; exits 3
# with the error log when it does not start. The caller stops it (nginx_stop).
nginx_start() {
  local dir=$1 http=$2 location=$3 conf root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  mkdir -p "$dir/www"
  echo ok >"$dir/www/index.html"
  nginx_port=$(bench_free_port)
  conf=$(<"$root/resources/nginx/nginx.conf.in")
  conf=${conf//@DIR@/"$dir"}
  conf=${conf//@PORT@/"$nginx_port"}
  conf=${conf//@LISTEN@/}
  conf=${conf//@HTTP@/"$http"}
  conf=${conf//@LOCATION@/"$location"}
  printf '%s\n' "$conf" >"$dir/nginx.conf"
  local run_as=()
  if [[ $(id -u) -eq 0 ]]; then chmod 777 "$dir"; run_as=(setpriv --reuid=nobody --regid=nogroup --clear-groups); fi
  "${run_as[@]}" /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" &
  nginx_pid=$!
  nginx_url="http://127.0.0.1:$nginx_port/"
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$nginx_port") 2>/dev/null && return 0
    kill -0 "$nginx_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "nginx did not start on 127.0.0.1:$nginx_port: $(cat "$dir/error.log" 2>/dev/null)" >&2
  exit 3
}

# Stops the nginx nginx_start started (no-op when none).
nginx_stop() {
  [[ -n "${nginx_pid:-}" ]] || return 0
  kill "$nginx_pid" 2>/dev/null || true
  wait "$nginx_pid" 2>/dev/null || true
  nginx_pid=
}

# "1.22.1": the installed nginx's version.
nginx_version() { /usr/sbin/nginx -v 2>&1 | sed 's/.*nginx\///'; }
