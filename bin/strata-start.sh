#!/usr/bin/env bash
# Starts Strata processes on this host and waits until each serves requests.
#
#   strata-start.sh local     a master and a worker with a local under-storage (no configuration needed)
#   strata-start.sh master    the master configured in $STRATA_CONF_DIR
#   strata-start.sh worker    a worker
#   strata-start.sh all       a master, then a worker
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/strata-process.sh"

usage() {
  echo "usage: strata-start.sh local|master|worker|all" >&2
  exit 2
}

[[ $# -ge 1 ]] || usage
what="$1"
shift
[[ $# -eq 0 ]] || usage

strata_ensure_built
mkdir -p "$STRATA_LOGS_DIR"
started=$(strata_now_ms)
case "$what" in
  local)
    mkdir -p "$STRATA_HOME/underFSStorage"
    strata_start master
    strata_start worker
    elapsed=$(( $(strata_now_ms) - started ))
    printf 'Local cluster ready in %d.%d s. Try: bin/strata fs ls /   (stop it with bin/strata-stop.sh)\n' \
      $((elapsed / 1000)) $((elapsed % 1000 / 100))
    ;;
  master) strata_start master ;;
  worker) strata_start worker ;;
  all)
    strata_start master
    strata_start worker
    ;;
  *) usage ;;
esac
