#!/usr/bin/env bash
# Starts Strata processes and waits until each serves requests.
#
#   strata-start.sh local [--masters N] [--workers M]
#                            a whole cluster on this host, no configuration needed; with N > 1 an HA
#                            master group (instance i uses the default ports + 1000*i, or
#                            $STRATA_LOCAL_PORT_BASE + 1000*i, and journals under $STRATA_LOCAL_DATA_DIR,
#                            default local/ in the install); each worker caches in memory and on disk
#                            under $STRATA_LOCAL_CACHE_DIR (default cache/ in the install) and serves
#                            clients of this host over a domain socket in $STRATA_LOCAL_DATA_DIR;
#                            TOKEN mode with a secret only this account reads, unless configured
#   strata-start.sh master   the master of this host, as $STRATA_CONF_DIR configures it
#   strata-start.sh worker   the worker of this host
#   strata-start.sh s3       the S3 endpoint of this host (beside its worker; port strata.s3.port)
#   strata-start.sh masters  a master on every host of $STRATA_CONF_DIR/masters (ssh for other hosts)
#   strata-start.sh workers  a worker and its S3 endpoint on every host of $STRATA_CONF_DIR/workers
#   strata-start.sh all      masters, then workers (each with its S3 endpoint)
#   strata-start.sh fuse MOUNT_POINT [STRATA_FOLDER] [--read-only] [-o OPTIONS]
#                            mounts STRATA_FOLDER (default /) of the cluster $STRATA_CONF_DIR names on
#                            MOUNT_POINT (an empty folder) with a FUSE process of its own; OPTIONS as
#                            FUSE file systems take them (ro,attr_timeout=60,immutable,...)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/strata-process.sh"

usage() {
  echo "usage: strata-start.sh local [--masters N] [--workers M] | master | worker | s3 | masters | workers | all" >&2
  echo "       strata-start.sh fuse MOUNT_POINT [STRATA_FOLDER] [--read-only] [-o OPTIONS]" >&2
  exit 2
}

[[ $# -ge 1 ]] || usage
what="$1"
shift
if [[ "$what" == fuse ]]; then
  [[ $# -ge 1 && $# -le 8 ]] || usage
  strata_ensure_built
  mkdir -p -m 700 "$STRATA_LOGS_DIR"
  name="$(strata_fuse_name "$1")"
  target="$(realpath -ms -- "$1")"
  pid="$(strata_running_pid "$name")"
  if [[ -n "$pid" ]]; then
    echo "$target is already mounted (pid $pid); log: $STRATA_LOGS_DIR/$name.log"
    exit 0
  fi
  STRATA_PROCESS_ARGS=("$target" "${@:2}")
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
mkdir -p -m 700 "$STRATA_LOGS_DIR"
# Its files are the owner's alone (logs, pid files, local-cluster.env): so is the folder.
if [[ -O "$STRATA_LOGS_DIR" ]]; then
  chmod 700 "$STRATA_LOGS_DIR"
fi
started=$(strata_now_ms)

# Whether the configuration sets key $1: as a STRATA_ variable or in the site file.
strata_configured() {
  local key="$1" var
  var="STRATA_$(echo "${key#strata.}" | tr '[:lower:].' '[:upper:]_')"
  [[ -n "${!var:-}" ]] && return 0
  [[ -f "$STRATA_CONF_DIR/strata-site.properties" ]] &&
    grep -Eq "^[[:space:]]*${key//./\\.}[[:space:]]*[=:]" "$STRATA_CONF_DIR/strata-site.properties"
}

# The value the configuration gives key $1 (as strata_configured finds it), empty if none.
strata_configured_value() {
  local key="$1" var
  var="STRATA_$(echo "${key#strata.}" | tr '[:lower:].' '[:upper:]_')"
  if [[ -n "${!var:-}" ]]; then
    echo "${!var}"
  elif [[ -f "$STRATA_CONF_DIR/strata-site.properties" ]]; then
    sed -nE "s/^[[:space:]]*${key//./\\.}[[:space:]]*[=:][[:space:]]*([^[:space:]]*).*/\1/p" \
      "$STRATA_CONF_DIR/strata-site.properties" | tail -n 1
  fi
}

# Local mode is the co-located deployment: unless the configuration says otherwise, worker $1 gets a
# domain socket (clients on this host read through it, and straight from its page files), an SSD
# tier in cache/ of the install with a quota of half the free space of its disk (counting what the
# cache holds as free; at most 64 GiB),
# and a memory tier of a sixteenth of the machine's memory (256 MiB to 1 GiB).
strata_local_worker_cache() {
  local i="$1" sock cache avail quota mem
  if ! strata_configured strata.worker.data.domain.socket.path; then
    sock="${STRATA_LOCAL_DATA_DIR:-$STRATA_HOME/local}/worker-$i.sock"
    if (( ${#sock} > 100 )); then
      # A socket path has to fit in 108 bytes.
      sock="$(strata_socket_folder)" || exit 1
      sock="$sock/worker-$i.sock"
    fi
    mkdir -p "$(dirname "$sock")"
    export STRATA_WORKER_DATA_DOMAIN_SOCKET_PATH="$sock"
  fi
  if ! strata_configured strata.worker.page.store.dirs; then
    cache="${STRATA_LOCAL_CACHE_DIR:-$STRATA_HOME/cache}/worker-$i"
    mkdir -p "$cache"
    # What the disk has free plus what the cache holds already, so that a restart with a full cache
    # keeps the quota it started with.
    avail=$(( $(df -B1 --output=avail "$cache" | tail -n 1 | tr -d ' ') + $(du -sb "$cache" | cut -f1) ))
    quota=$(( avail / 2 / 1048576 ))
    (( quota > 65536 )) && quota=65536
    if (( quota >= 256 )); then
      export STRATA_WORKER_PAGE_STORE_DIRS="$cache:${quota}MiB"
    else
      echo "strata: only $((avail / 1048576)) MiB free under $cache: worker-$i caches in memory only" >&2
    fi
  fi
  if ! strata_configured strata.worker.page.store.mem.size; then
    mem=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 / 16 ))
    (( mem < 256 )) && mem=256
    (( mem > 1024 )) && mem=1024
    export STRATA_WORKER_PAGE_STORE_MEM_SIZE="${mem}MiB"
  fi
}

# Every start is safe on a shared host (a GPU node has many accounts): unless the configuration
# names a security mode and its secret, the processes run in TOKEN mode with a secret only the
# starting account can read, kept in $STRATA_LOCAL_DATA_DIR (made at the first start). That
# account's shells and mounts find it through local-cluster.env; another account's get
# UNAUTHENTICATED until an admin gives them a token (fsadmin token create).
# STRATA_SECURITY_MODE=NONE keeps the single-user cluster of old. $1: "local" starts the whole
# cluster (local-cluster.env is made anew); a master or worker of this host adds to what is there.
# Hosts of a multi-host cluster need one secret between them: configure
# strata.security.secret.file on each (a secret made here is this host's alone).
strata_default_security() {
  local dir="${STRATA_LOCAL_DATA_DIR:-$STRATA_HOME/local}" secret
  if [[ "$1" == local ]]; then
    : > "$STRATA_LOGS_DIR/local-cluster.env"
  else
    touch "$STRATA_LOGS_DIR/local-cluster.env"
  fi
  chmod 600 "$STRATA_LOGS_DIR/local-cluster.env"
  if strata_configured strata.security.secret.file || [[ "$(strata_configured_value strata.security.mode)" == NONE ]]; then
    # Set in this shell's environment (perhaps by an earlier cluster's local-cluster.env): later
    # shells need it as much (from the site file, they read it themselves).
    local var
    for var in STRATA_SECURITY_MODE STRATA_SECURITY_SECRET_FILE STRATA_SECURITY_TOKEN_FILE; do
      if [[ -n "${!var:-}" ]]; then
        strata_env_line "$(printf 'export %s=%q' "$var" "${!var}")"
      fi
    done
    return 0
  fi
  if [[ "$1" != local ]] && ! strata_is_loopback "$(strata_configured_value "strata.$1.bind.host")"; then
    # A secret made here would be this host's alone: other hosts could not prove themselves.
    echo "strata: the $1 listens on $(strata_configured_value "strata.$1.bind.host"), not loopback:" \
      "the hosts of a cluster need one secret between them; set strata.security.secret.file" \
      "in $STRATA_CONF_DIR/strata-site.properties" >&2
    exit 1
  fi
  secret="$dir/secret"
  if ! mkdir -p "$dir" 2>/dev/null || [[ ! -w "$dir" ]]; then
    echo "strata: cannot make the host secret in $dir (not writable); set STRATA_LOCAL_DATA_DIR" \
      "or strata.security.secret.file" >&2
    exit 1
  fi
  if [[ ! -s "$secret" ]]; then
    (umask 077 && head -c 48 /dev/urandom | base64 -w0 > "$secret.$$" && mv "$secret.$$" "$secret")
  fi
  chmod 600 "$secret"
  export STRATA_SECURITY_MODE=TOKEN STRATA_SECURITY_SECRET_FILE="$secret"
  strata_env_line "$(printf 'export STRATA_SECURITY_MODE=TOKEN STRATA_SECURITY_SECRET_FILE=%q' "$secret")"
}

# Whether $1 (a bind host; empty: the default, 127.0.0.1) is this machine's loopback.
strata_is_loopback() {
  case "${1:-127.0.0.1}" in
    127.* | localhost | ::1 | "[::1]") return 0 ;;
    *) return 1 ;;
  esac
}

# Adds line $1 to local-cluster.env unless it is there.
strata_env_line() {
  grep -qxF -- "$1" "$STRATA_LOGS_DIR/local-cluster.env" || echo "$1" >> "$STRATA_LOGS_DIR/local-cluster.env"
}

# An HA cluster on this host: every instance gets its own ports and folders through the environment.
start_local_group() {
  local base="${STRATA_LOCAL_PORT_BASE:-7700}" i rpcs="" journals=""
  for ((i = 0; i < masters; i++)); do
    rpcs+="${rpcs:+,}localhost:$((base + 1000 * i))"
    journals+="${journals:+,}localhost:$((base + 1000 * i + 1))"
  done
  echo "export STRATA_MASTER_RPC_ADDRESSES=$rpcs" >> "$STRATA_LOGS_DIR/local-cluster.env"
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
    (
    strata_local_worker_cache "$i"
    STRATA_WORKER_HOSTNAME=localhost STRATA_WORKER_RPC_PORT=$((base + 1000 * i + 10)) \
      STRATA_WORKER_DATA_PORT=$((base + 1000 * i + 11)) STRATA_WORKER_WEB_PORT=$((base + 1000 * i + 12)) \
      STRATA_WORKER_STATE_FOLDER="${STRATA_LOCAL_DATA_DIR:-$STRATA_HOME/local}/worker-$i" strata_launch "worker-$i"
    )
  done
  for ((i = 0; i < workers; i++)); do
    strata_await "worker-$i"
  done
  STRATA_S3_PORT=$((base + 13)) strata_start s3
}

# Every worker host serves S3 beside its worker (issue 56): any endpoint answers any key.
start_workers() {
  strata_on_hosts workers strata-start.sh worker
  strata_on_hosts workers strata-start.sh s3
}

case "$what" in
  local)
    mkdir -p "$STRATA_HOME/underFSStorage" "$STRATA_LOGS_DIR"
    strata_default_security local
    if (( masters == 1 && workers == 1 )); then
      strata_start master
      (strata_local_worker_cache 0 && strata_start worker)
      strata_start s3
    else
      start_local_group
    fi
    elapsed=$(( $(strata_now_ms) - started ))
    printf 'Local cluster ready in %d.%d s. Try: bin/strata fs ls /   (stop it with bin/strata-stop.sh)\n' \
      $((elapsed / 1000)) $((elapsed % 1000 / 100))
    sed 's/^[a-z0-9-]* ready in [0-9.]* s: //' "$STRATA_LOGS_DIR/s3.ready"
    strata_build_shell_archive
    ;;
  master) strata_default_security master; strata_start master; strata_build_shell_archive ;;
  worker) strata_default_security worker; strata_start worker ;;
  s3) strata_start s3 ;;
  masters) strata_on_hosts masters strata-start.sh master ;;
  workers) start_workers ;;
  all)
    strata_on_hosts masters strata-start.sh master
    start_workers
    ;;
  *) usage ;;
esac
