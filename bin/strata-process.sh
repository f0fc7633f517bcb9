# Sourced by strata-start.sh and strata-stop.sh: start, wait for, and stop processes by name.
# A process named master, master-1, worker-2... is of the kind its name starts with.
# shellcheck disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/strata-common.sh"

STRATA_START_TIMEOUT="${STRATA_START_TIMEOUT:-60}"

# A folder for worker sockets whose paths would not fit in the 108 bytes of a socket address: the
# one recorded in the local data folder if it is still this account's own, owner-only and no link,
# else a new one from mktemp (unpredictable, 0700), recorded. Never a fixed name in /tmp, which
# another account could take first, to stop the worker from starting or to listen in its place.
strata_socket_folder() {
  local data="${STRATA_LOCAL_DATA_DIR:-$STRATA_HOME/local}" dir
  local record="$data/socket-folder"
  dir="$(cat "$record" 2>/dev/null || true)"
  if [[ -z "$dir" || -L "$dir" || ! -d "$dir" || ! -O "$dir" || "$(stat -c %a "$dir")" != 700 ]]; then
    dir="$(mktemp -d "${XDG_RUNTIME_DIR:-/tmp}/strata-XXXXXXXXXX")" \
      || strata_die "cannot make a folder for the worker's socket in ${XDG_RUNTIME_DIR:-/tmp}"
    mkdir -p "$data"
    printf '%s\n' "$dir" > "$record"
  fi
  printf '%s\n' "$dir"
}

strata_kind() {
  case "$1" in
    master*) echo master ;;
    worker*) echo worker ;;
    fuse*) echo fuse ;;
    s3*) echo s3 ;;
    *) strata_die "unknown process $1" ;;
  esac
}

strata_main_class() {
  case "$(strata_kind "$1")" in
    master) echo io.strata.master.MasterProcess ;;
    worker) echo io.strata.worker.WorkerProcess ;;
    fuse) echo io.strata.fuse.FuseProcess ;;
    s3) echo io.strata.s3.S3Process ;;
  esac
}

strata_default_java_opts() {
  case "$(strata_kind "$1")" in
    master) echo "${STRATA_MASTER_JAVA_OPTS:--Xms64m -Xmx512m -XX:MaxDirectMemorySize=256m -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError}" ;;
    worker) echo "${STRATA_WORKER_JAVA_OPTS:--Xms256m -Xmx1g -XX:MaxDirectMemorySize=2g -XX:+ExitOnOutOfMemoryError}" ;;
    fuse) echo "${STRATA_FUSE_JAVA_OPTS:--Xms64m -Xmx512m -XX:MaxDirectMemorySize=512m -XX:+ExitOnOutOfMemoryError}" ;;
    s3) echo "${STRATA_S3_JAVA_OPTS:--Xms64m -Xmx512m -XX:MaxDirectMemorySize=512m -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError}" ;;
  esac
}

# Class-data sharing for servers, which load 6,000 to 8,000 classes before they serve: a process
# started while lib/ has no fresh archive of its kind records the classes it loaded when it stops,
# and strata_stop adopts that record; later starts map it instead of loading and verifying again.
strata_archive() {
  echo "$STRATA_HOME/lib/strata-$(strata_kind "$1").jsa"
}

strata_cds_opts() {
  local archive
  archive="$(strata_archive "$1")"
  if strata_archive_fresh "$archive"; then
    echo "-XX:SharedArchiveFile=$archive $STRATA_CDS_QUIET"
  elif [[ -w "$STRATA_HOME/lib" ]] && ! strata_recording "$1"; then
    touch "$archive.$1.started"
    echo "-XX:ArchiveClassesAtExit=$archive.$1.tmp $STRATA_CDS_QUIET"
  fi
}

# True while a live process of $1's kind records its classes (its pid is in its marker): one
# record per kind is enough, and each recorder's stop takes seconds longer (three masters of a
# local HA group recorded at once, and its first start and stop took 60 s instead of 16).
strata_recording() {
  local marker pid
  for marker in "$(strata_archive "$1")".*.started; do
    [[ -e "$marker" ]] || continue
    pid="$(cat "$marker" 2>/dev/null || true)"
    if [[ "$pid" =~ ^[0-9]+$ ]] && strata_alive "$pid"; then
      return 0
    fi
  done
  return 1
}

# After process $1 has exited: keeps the classes it recorded, unless another process of its kind
# already did, or a jar was replaced while it ran (a build under a running cluster): its record
# would name the old jars, the JVM would refuse it at every start, and being newer than the jars it
# would never be recorded again.
strata_adopt_archive() {
  local archive
  archive="$(strata_archive "$1")"
  if [[ -s "$archive.$1.tmp" ]] && ! strata_archive_fresh "$archive" \
      && [[ -z "$(find "$STRATA_HOME/lib" -name '*.jar' -newer "$archive.$1.started" -print -quit 2>/dev/null)" ]]; then
    mv -f "$archive.$1.tmp" "$archive"
  fi
  rm -f "$archive.$1.tmp" "$archive.$1.started"
}

# True while process $1 runs: an exited process whose parent has not reaped it yet (a zombie; the
# init of a container may reap late) no longer counts.
strata_alive() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  stat="${stat##*) }"
  [[ "${stat:0:1}" != Z ]]
}

# Prints the pid recorded for $1 if that process is alive and is that Strata JVM; else nothing.
strata_running_pid() {
  local pidfile="$STRATA_LOGS_DIR/$1.pid" pid
  [[ -f "$pidfile" ]] || return 0
  local cmdline
  pid="$(cat "$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] && strata_alive "$pid" || return 0
  # Read the whole command line first: grep -q on a pipe could break it under pipefail.
  cmdline="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)"
  if [[ "$cmdline" == *"$(strata_main_class "$1")"* ]]; then
    echo "$pid"
  fi
}

# The names of the processes of kind $1 (master|worker|fuse) with a pid file here.
strata_names() {
  local f
  for f in "$STRATA_LOGS_DIR/$1"*.pid; do
    [[ -e "$f" ]] && basename "$f" .pid
  done
  return 0
}

# Starts process $1 in the background (extra environment comes from the caller); returns at once.
strata_launch() {
  local name="$1" pid cds
  pid="$(strata_running_pid "$name")"
  if [[ -n "$pid" ]]; then
    echo "$name is already running (pid $pid); log: $STRATA_LOGS_DIR/$name.log"
    return 0
  fi
  rm -f "$STRATA_LOGS_DIR/$name.ready"
  # Its output names paths and users: this account's only (log4j2.xml does the same for the logs).
  (umask 077 && : > "$STRATA_LOGS_DIR/$name.out" && chmod 600 "$STRATA_LOGS_DIR/$name.out")
  strata_java_args "$name" "$(strata_classpath "$(strata_kind "$name")")"
  cds="$(strata_cds_opts "$name")"
  # shellcheck disable=SC2046,SC2086
  nohup "$JAVA" $(strata_default_java_opts "$name") $cds ${STRATA_JAVA_OPTS:-} \
    "${STRATA_JAVA_ARGS[@]}" \
    "$(strata_main_class "$name")" --ready-file "$STRATA_LOGS_DIR/$name.ready" \
    ${STRATA_PROCESS_ARGS[@]+"${STRATA_PROCESS_ARGS[@]}"} > "$STRATA_LOGS_DIR/$name.out" 2>&1 < /dev/null &
  echo "$!" > "$STRATA_LOGS_DIR/$name.pid"
  if [[ "$cds" == *ArchiveClassesAtExit* ]]; then
    echo "$!" > "$(strata_archive "$name").$name.started"
  fi
}

# Waits until process $1 serves requests; on failure prints why and exits.
strata_await() {
  local name="$1" pid waited=0 ready="$STRATA_LOGS_DIR/$1.ready"
  pid="$(cat "$STRATA_LOGS_DIR/$name.pid" 2>/dev/null || true)"
  while [[ ! -f "$ready" ]]; do
    if [[ -z "$pid" ]] || ! strata_alive "$pid"; then
      rm -f "$STRATA_LOGS_DIR/$name.pid"
      echo "$name failed to start:" >&2
      tail -n 5 "$STRATA_LOGS_DIR/$name.out" >&2
      echo "(full log: $STRATA_LOGS_DIR/$name.log)" >&2
      exit 1
    fi
    if (( waited >= STRATA_START_TIMEOUT * 10 )); then
      echo "$name did not become ready within ${STRATA_START_TIMEOUT}s (pid $pid still running);" \
        "log: $STRATA_LOGS_DIR/$name.log" >&2
      exit 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  echo "$name started (pid $pid): $(sed 's/^[a-z0-9-]* ready in [0-9.]* s: //' "$ready"); log: $STRATA_LOGS_DIR/$name.log"
}

# Starts process $1 and waits until it serves, or says once that it already runs.
strata_start() {
  local pid
  pid="$(strata_running_pid "$1")"
  if [[ -n "$pid" ]]; then
    echo "$1 is already running (pid $pid); log: $STRATA_LOGS_DIR/$1.log"
    return 0
  fi
  strata_launch "$1"
  strata_await "$1"
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
  while strata_alive "$pid"; do
    if (( waited >= 300 )); then
      echo "$name (pid $pid) did not stop within 30 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$STRATA_LOGS_DIR/$name.pid" "$STRATA_LOGS_DIR/$name.ready"
  strata_adopt_archive "$name"
  echo "stopped $name (pid $pid)"
}

# Stops every process of kind $1 started from here; "no KIND running" unless $2 is "quiet".
strata_stop_kind() {
  local names
  names="$(strata_names "$1")"
  if [[ -z "$names" ]]; then
    [[ "${2:-}" == quiet ]] || echo "no $1 running"
    return 0
  fi
  local n
  for n in $names; do
    strata_stop "$n"
  done
}

# Whether host $1 is this machine.
strata_is_local_host() {
  case "$1" in
    localhost|127.*|::1|"$(hostname)"|"$(hostname -f 2>/dev/null)") return 0 ;;
    *) return 1 ;;
  esac
}

# The hosts listed in $STRATA_CONF_DIR/$1 (masters or workers), without comments or blank lines.
strata_hosts() {
  local file="$STRATA_CONF_DIR/$1"
  [[ -f "$file" ]] || strata_die "no $file listing the $1 to start"
  sed -e 's/#.*//' -e 's/[[:space:]]//g' "$file" | grep -v '^$' || true
}

# Runs bin/$2 on every host of $STRATA_CONF_DIR/$1: this host directly, others over ssh.
strata_on_hosts() {
  local list="$1" host
  shift
  for host in $(strata_hosts "$list"); do
    if strata_is_local_host "$host"; then
      "$STRATA_HOME/bin/$1" "${@:2}"
    else
      echo "[$host] $*"
      ssh -o BatchMode=yes "$host" "STRATA_CONF_DIR='$STRATA_CONF_DIR' '$STRATA_HOME/bin/$1' ${*:2}" || \
        echo "[$host] failed" >&2
    fi
  done
}

# Whether folder $1 (absolute) is a Strata FUSE mount of this host, live or left by a dead process.
strata_fuse_mounted() {
  awk -v target="$1" '$3 == "fuse.strata" { gsub(/\\040/, " ", $2); if ($2 == target) found = 1 }
    END { exit !found }' /proc/self/mounts
}

# Aborts the FUSE connection of the mount on folder $1 (root; fusectl mounted if it is not): a
# process killed while one of its threads was blocked in the kernel on its own mount cannot finish
# dying, and every caller of the mount waits until the connection is aborted (core's
# FuseConnections says why). Quiet and harmless for a connection already ended.
strata_fuse_abort() {
  local id
  id="$(awk -v target="$1" '{ p = $5; gsub(/\\040/, " ", p) } p == target { split($3, d, ":");
    id = (d[2] % 256) + d[1] * 256 + int(d[2] / 256) * 1048576 } END { if (id != "") print id }' \
    /proc/self/mountinfo)"
  [[ -n "$id" ]] || return 0
  local control=/sys/fs/fuse/connections
  [[ -d "$control/$id" ]] || mount -t fusectl none "$control" 2>/dev/null || true
  [[ -w "$control/$id/abort" ]] && echo 1 > "$control/$id/abort" 2>/dev/null || true
}

# The process name of the FUSE mount on folder $1: fuse, then the absolute path with / as _.
# Lexical (realpath -ms): a mount whose process died cannot even be stat-ed, and must still be named.
strata_fuse_name() {
  local abs
  abs="$(realpath -ms -- "$1")"
  echo "fuse${abs//\//_}"
}
