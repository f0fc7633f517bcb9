#!/usr/bin/env bash
# Starts Strata processes and waits until each serves requests.
#
#   strata-start.sh local [--masters N] [--workers M]
#                            a whole cluster on this host, no configuration needed; with N > 1 an HA
#                            master group (instance i uses the default ports + 1000*i, or
#                            $STRATA_LOCAL_PORT_BASE + 1000*i, and journals under $STRATA_LOCAL_DATA_DIR,
#                            default local/ in the install)
#   strata-start.sh master   the master of this host, as $STRATA_CONF_DIR configures it
#   strata-start.sh worker   the worker of this host
#   strata-start.sh masters  a master on every host of $STRATA_CONF_DIR/masters (ssh for other hosts)
#   strata-start.sh workers  a worker on every host of $STRATA_CONF_DIR/workers
#   strata-start.sh all      masters, then workers
#   strata-start.sh fuse MOUNT_POINT [STRATA_FOLDER] [--read-only]
#                            mounts STRATA_FOLDER (default /) of the cluster $STRATA_CONF_DIR names on
#                            MOUNT_POINT (an empty folder) with a FUSE process of its own
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/strata-process.sh"

usage() {
  echo "usage: strata-start.sh local [--masters N] [--workers M] | master | worker | masters | workers | all" >&2
  echo "       strata-start.sh fuse MOUNT_POINT [STRATA_FOLDER] [--read-only]" >&2
  exit 2
}

[[ $# -ge 1 ]] || usage
what="$1"
shift
if [[ "$what" == fuse ]]; then
  [[ $# -ge 1 && $# -le 3 ]] || usage
  strata_ensure_built
  mkdir -p "$STRATA_LOGS_DIR"
  name="$(strata_fuse_name "$1")"
  STRATA_PROCESS_ARGS=("$(realpath -ms -- "$1")" "${@:2}")
  strata_start "$name"
  exit 0
fi
masters=1
workers=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --masters) [[ "${2:-}" =~ ^[1-9]$ ]] || usage; masters="$2"; shift 2 ;;
    --workers) [[ "${2:-}" =~ ^[1-9][0-9]?$ ]] || usage; workers="$2"; shift 2 ;;
    *) usage ;;
  esac
done
[[ "$what" == local || ( $masters -eq 1 && $workers -eq 1 ) ]] || usage

strata_ensure_built
mkdir -p "$STRATA_LOGS_DIR"
started=$(strata_now_ms)

# An HA cluster on this host: every instance gets its own ports and folders through the environment.
start_local_group() {
  local base="${STRATA_LOCAL_PORT_BASE:-7700}" i rpcs="" journals=""
  for ((i = 0; i < masters; i++)); do
    rpcs+="${rpcs:+,}localhost:$((base + 1000 * i))"
    journals+="${journals:+,}localhost:$((base + 1000 * i + 1))"
  done
  echo "export STRATA_MASTER_RPC_ADDRESSES=$rpcs" > "$STRATA_LOGS_DIR/local-cluster.env"
  export STRATA_MASTER_RPC_ADDRESSES="$rpcs"
  for ((i = 0; i < masters; i++)); do
    STRATA_MASTER_HOSTNAME=localhost STRATA_MASTER_RPC_PORT=$((base + 1000 * i)) \
      STRATA_MASTER_EMBEDDED_JOURNAL_PORT=$((base + 1000 * i + 1)) STRATA_MASTER_WEB_PORT=$((base + 1000 * i + 2)) \
      STRATA_MASTER_EMBEDDED_JOURNAL_ADDRESSES="$journals" \
      STRATA_MASTER_JOURNAL_FOLDER="${STRATA_LOCAL_DATA_DIR:-$STRATA_HOME/local}/journal/master-$i" \
      strata_launch "master-$i"
  done
  for ((i = 0; i < masters; i++)); do
    strata_await "master-$i"
  done
  for ((i = 0; i < workers; i++)); do
    STRATA_WORKER_HOSTNAME=localhost STRATA_WORKER_RPC_PORT=$((base + 1000 * i + 10)) \
      STRATA_WORKER_DATA_PORT=$((base + 1000 * i + 11)) STRATA_WORKER_WEB_PORT=$((base + 1000 * i + 12)) \
      STRATA_WORKER_STATE_FOLDER="${STRATA_LOCAL_DATA_DIR:-$STRATA_HOME/local}/worker-$i" strata_launch "worker-$i"
  done
  for ((i = 0; i < workers; i++)); do
    strata_await "worker-$i"
  done
}

case "$what" in
  local)
    mkdir -p "$STRATA_HOME/underFSStorage"
    if (( masters == 1 && workers == 1 )); then
      strata_start master
      strata_start worker
    else
      start_local_group
    fi
    elapsed=$(( $(strata_now_ms) - started ))
    printf 'Local cluster ready in %d.%d s. Try: bin/strata fs ls /   (stop it with bin/strata-stop.sh)\n' \
      $((elapsed / 1000)) $((elapsed % 1000 / 100))
    strata_build_shell_archive
    ;;
  master) strata_start master; strata_build_shell_archive ;;
  worker) strata_start worker ;;
  masters) strata_on_hosts masters strata-start.sh master ;;
  workers) strata_on_hosts workers strata-start.sh worker ;;
  all)
    strata_on_hosts masters strata-start.sh master
    strata_on_hosts workers strata-start.sh worker
    ;;
  *) usage ;;
esac
