#!/usr/bin/env bash
# Installs the Debian 12 packages RateLab needs, only those missing.
# Idempotent: runs `apt-get update` only when something must be installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libqt6test6
  libhiredis-dev redis-server redis-tools
  libbenchmark-dev
  xvfb xauth libxkbcommon-dev curl wrk
  nlohmann-json3-dev zlib1g-dev libre2-dev libyaml-cpp-dev libssl-dev openssl
  nginx-light
  clang libfuzzer-14-dev
  python3-limits python3-redis
  ccache
  chromium
)
# Node.js and npm drive the rate-limiter-flexible peer and its tests. A machine
# may already have Node from elsewhere (e.g. NodeSource, whose bundled npm
# conflicts with Debian's npm package): install Debian's only when missing.
if ! command -v node >/dev/null 2>&1; then packages+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then packages+=(npm); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# redis-server's package starts a system service on :6379 and nginx's one on :80;
# RateLab's tests never rely on either: they start their own on free ports.
