#!/usr/bin/env bash
# Installs whatever signalforge needs and this machine lacks, then returns. Safe to run again:
# when everything is present it only checks (well under a second).
#   apt: nats-server, bubblewrap, the Debian Python stack (numpy, pandas, sklearn, xgboost, onnx)
#        libseccomp's binding (python3-seccomp: the sandbox's syscall filter) and optuna (the optimiser's samplers)
#   apt: chromium (the web app's browser tests drive it with playwright-core)
#   apt: haproxy (the tests run deploy/haproxy.cfg, the distributed layout's load balancer, for real)
#   npm: the locked dependencies, when node_modules is missing or older than the lock file
#   web: the browser bundle (build/web), when missing or older than its sources
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-/usr/bin/python3}"
declare -A PY_PACKAGES=([numpy]=python3-numpy [pandas]=python3-pandas [sklearn]=python3-sklearn [xgboost]=python3-xgboost [onnx]=python3-onnx [seccomp]=python3-seccomp [optuna]=python3-optuna)

missing=()
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
[ -x /usr/lib/chromium/chromium ] || missing+=(chromium)
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
# find_spec locates a module without importing it, so this check stays fast.
if [ -x "$PY" ]; then
  absent=$("$PY" -c 'import importlib.util, sys; print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))' "${!PY_PACKAGES[@]}")
else
  absent="${!PY_PACKAGES[*]}"
fi
for module in $absent; do missing+=("${PY_PACKAGES[$module]}"); done

if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-deps: installing with apt: ${missing[*]}" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=(); elif sudo -n true 2>/dev/null; then SUDO=(sudo -n); else
    echo "ensure-deps: need root to run: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# onnxruntime-node's install script downloads from a feed this machine cannot reach; the CPU
# runtime it needs ships inside the npm package, so the script is skipped.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "ensure-deps: installing npm dependencies" >&2
  # `npm install`, not `npm ci`: the lock cannot list chdb's engines for other platforms (the
  # registry reached here does not serve them), which `npm ci` takes for a stale lock. With the
  # lock present, `npm install` installs exactly its versions.
  npm install --no-audit --no-fund --loglevel=error
fi

# The web app's bundle (esbuild; a fraction of a second): rebuilt only when web/ changed since.
if [ ! -f build/web/manifest.json ] || [ -n "$(find web -newer build/web/manifest.json -print -quit)" ]; then
  echo "ensure-deps: building the web bundle" >&2
  node --import tsx src/edge/web/bundle.ts >&2
fi
