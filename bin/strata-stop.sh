#!/usr/bin/env bash
# Stops Strata processes that bin/strata-start.sh started (found by their pid files in
# $STRATA_LOGS_DIR); nothing else is touched.
#
#   strata-stop.sh [all|local|master|worker]     default: all
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/strata-process.sh"

what="${1:-all}"
case "$what" in
  all|local)
    strata_stop worker
    strata_stop master
    ;;
  master|worker) strata_stop "$what" ;;
  *)
    echo "usage: strata-stop.sh [all|local|master|worker]" >&2
    exit 2
    ;;
esac
