#!/usr/bin/env bash
# Installs the Debian 12 packages RateLab needs, only those missing.
# Idempotent: runs `apt-get update` only when something must be installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-httpserver-dev libqt6test6
  libhiredis-dev redis-server redis-tools
  libbenchmark-dev
  xvfb xauth libxkbcommon-dev curl wrk
)

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
# redis-server's package starts a system service on :6379; RateLab never relies on it.
