# Sourced by strata-start.sh and strata-stop.sh: start, wait for, and stop one process by name.
# shellcheck disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/strata-common.sh"

STRATA_START_TIMEOUT="${STRATA_START_TIMEOUT:-60}"

strata_main_class() {
  case "$1" in
    master) echo io.strata.master.MasterProcess ;;
    worker) echo io.strata.worker.WorkerProcess ;;
    *) strata_die "unknown process kind $1" ;;
  esac
}

strata_default_java_opts() {
  case "$1" in
    master) echo "${STRATA_MASTER_JAVA_OPTS:--Xms128m -Xmx1g -XX:+ExitOnOutOfMemoryError}" ;;
    worker) echo "${STRATA_WORKER_JAVA_OPTS:--Xms256m -Xmx1g -XX:MaxDirectMemorySize=2g -XX:+ExitOnOutOfMemoryError}" ;;
  esac
}

# Prints the pid recorded for $1 if that process is alive and is a Strata JVM; else nothing.
strata_running_pid() {
  local pidfile="$STRATA_LOGS_DIR/$1.pid" pid
  [[ -f "$pidfile" ]] || return 0
  pid="$(cat "$pidfile")"
  if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null \
      && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "$(strata_main_class "$1")"; then
    echo "$pid"
  fi
}

strata_start() {
  local name="$1" pid log out ready waited=0
  log="$STRATA_LOGS_DIR/$name.log"
  out="$STRATA_LOGS_DIR/$name.out"
  ready="$STRATA_LOGS_DIR/$name.ready"
  pid="$(strata_running_pid "$name")"
  if [[ -n "$pid" ]]; then
    echo "$name is already running (pid $pid); log: $log"
    return 0
  fi
  rm -f "$ready"
  strata_java_args "$name"
  # shellcheck disable=SC2046,SC2086
  nohup "$JAVA" $(strata_default_java_opts "$name") ${STRATA_JAVA_OPTS:-} "${STRATA_JAVA_ARGS[@]}" \
    "$(strata_main_class "$name")" --ready-file "$ready" > "$out" 2>&1 < /dev/null &
  pid=$!
  echo "$pid" > "$STRATA_LOGS_DIR/$name.pid"
  while [[ ! -f "$ready" ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$STRATA_LOGS_DIR/$name.pid"
      echo "$name failed to start:" >&2
      tail -n 5 "$out" >&2
      echo "(full log: $log)" >&2
      exit 1
    fi
    if (( waited >= STRATA_START_TIMEOUT * 10 )); then
      echo "$name did not become ready within ${STRATA_START_TIMEOUT}s (pid $pid still running); log: $log" >&2
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  echo "$name started (pid $pid): $(sed 's/^[a-z]* ready in [0-9.]* s: //' "$ready"); log: $log"
}

strata_stop() {
  local name="$1" pid waited=0
  pid="$(strata_running_pid "$name")"
  if [[ -z "$pid" ]]; then
    rm -f "$STRATA_LOGS_DIR/$name.pid" "$STRATA_LOGS_DIR/$name.ready"
    echo "no $name running"
    return 0
  fi
  kill -TERM "$pid"
  while kill -0 "$pid" 2>/dev/null; do
    if (( waited >= 300 )); then
      echo "$name (pid $pid) did not stop within 30 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$STRATA_LOGS_DIR/$name.pid" "$STRATA_LOGS_DIR/$name.ready"
  echo "stopped $name (pid $pid)"
}
