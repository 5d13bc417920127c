#!/usr/bin/env bash
# K replicas of the app behind HAProxy on 127.0.0.1 (see deploy/replicas.py); Ctrl-C stops all.
#   deploy/replicas.sh [K=2] [PORT=8500]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python deploy/replicas.py --replicas "${1:-2}" --port "${2:-8500}"
