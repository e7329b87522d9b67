#!/usr/bin/env bash
# Storms a real nginx limit_req beside RateLab's leaky_bucket (same rate and burst):
# starts Debian's nginx as an unprivileged child on a free loopback port with a
# temp config (pid, error log and temp paths in a temp dir), runs
# resources/scenarios/nginx_limit_req.json against it, stops it.
#   scripts/nginx-limit-req-demo.sh [extra ratelab-cli run flags, e.g. --json]
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${RATELAB_CLI:-build/app/cli/ratelab-cli}
dir=$(mktemp -d)
chmod 755 "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$dir/www" && echo ok > "$dir/www/index.html"
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $dir/body; proxy_temp_path $dir/proxy; fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;
  limit_req_zone \$binary_remote_addr zone=z:1m rate=10r/s;
  server {
    listen 127.0.0.1:$port;
    # a static file: 'return' would answer before limit_req runs
    location / { limit_req zone=z burst=5 nodelay; limit_req_status 429; root $dir/www; }
  }
}
CONF
run_as=()
if [[ $(id -u) -eq 0 ]]; then chmod 777 "$dir"; run_as=(setpriv --reuid=nobody --regid=nogroup --clear-groups); fi
"${run_as[@]}" /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" &
nginx_pid=$!
trap 'kill "$nginx_pid" 2>/dev/null; wait "$nginx_pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
echo "nginx $(/usr/sbin/nginx -v 2>&1 | sed 's/.*nginx\///') on 127.0.0.1:$port: limit_req rate=10r/s burst=5 nodelay" >&2
"$cli" run --scenario resources/scenarios/nginx_limit_req.json --http-target "http://127.0.0.1:$port/" "$@"
