# Sourced by the bin/ scripts: where Strata lives, its configuration, Java, and the build.
# Honours STRATA_CONF_DIR (the conf folder to use) and STRATA_LOGS_DIR (logs and pid files),
# so several processes or clusters can run from one install.

STRATA_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STRATA_CONF_DIR="${STRATA_CONF_DIR:-$STRATA_HOME/conf}"
STRATA_LOGS_DIR="${STRATA_LOGS_DIR:-$STRATA_HOME/logs}"

# Prints the first of the given paths (those that exist) that root should not trust: one another
# account owns or may write (everyone's write bit, or a group's other than root's). A script run as root sources
# conf/strata-env.sh and logs/local-cluster.env, runs lib/'s jars and builds with Maven: whoever
# may change one of those runs their commands as root (issue 78).
strata_untrusted_by_root() {
  local p
  for p in "$@"; do
    [[ -e "$p" || -L "$p" ]] || continue
    if [[ -n "$(find "$p" -maxdepth 0 \( ! -user 0 -o \( ! -type l \( -perm -002 -o \( -perm -020 ! -group 0 \) \) \) \) -print 2>/dev/null)" ]]; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# The first file or folder of the source tree that root should not build from (see above); the
# build's own output, logs, data and Git's store aside.
strata_untrusted_source() {
  find "$1" -xdev \( -name target -o -name .git -o -name lib -o -name logs -o -name data \) -prune \
    -o \( ! -user 0 -o \( ! -type l \( -perm -002 -o \( -perm -020 ! -group 0 \) \) \) \) -print -quit 2>/dev/null
}

if [[ "${EUID:-$(id -u)}" == 0 ]]; then
  untrusted="$(strata_untrusted_by_root "$STRATA_HOME" "$STRATA_HOME/bin" "$STRATA_HOME/lib" \
    "$STRATA_CONF_DIR" "$STRATA_CONF_DIR/strata-env.sh" "$STRATA_LOGS_DIR")" && {
    echo "strata: refusing to run as root: $untrusted is owned or writable by another account" \
      "(chown root and chmod go-w it, or run as that account)" >&2
    exit 1
  }
  unset untrusted
fi

if [[ -f "$STRATA_CONF_DIR/strata-env.sh" ]]; then
  # shellcheck disable=SC1091
  . "$STRATA_CONF_DIR/strata-env.sh"
fi
export STRATA_HOME STRATA_CONF_DIR STRATA_LOGS_DIR
# A cluster started by `strata-start.sh` tells the starting account's later commands its security
# mode, secret and (local --masters N) where its masters are. Sourced only if it is this account's
# own (0600): a file another account could write would run its commands as this one.
if [[ -f "$STRATA_LOGS_DIR/local-cluster.env" && -O "$STRATA_LOGS_DIR/local-cluster.env" ]]; then
  # shellcheck disable=SC1091
  . "$STRATA_LOGS_DIR/local-cluster.env"
fi

if [[ -n "${STRATA_JAVA:-}" ]]; then
  JAVA="$STRATA_JAVA"
elif [[ -n "${JAVA_HOME:-}" ]]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA="java"
fi

strata_die() {
  echo "strata: $*" >&2
  exit 1
}

# Builds lib/ when it is missing or older than the sources (after a git pull, say).
strata_ensure_built() {
  local marker="" jar
  for jar in "$STRATA_HOME"/lib/strata-core-*.jar; do
    [[ -e "$jar" ]] && marker="$jar"
  done
  # A build leaves the jars of unchanged modules as they were: it marks its own time.
  [[ -n "$marker" && -e "$STRATA_HOME/lib/.built" ]] && marker="$STRATA_HOME/lib/.built"
  # Only the modules' sources and poms: the install also holds UFS data, logs and journals.
  if [[ -n "$marker" ]] && [[ -z "$(find "$STRATA_HOME"/*/src/main "$STRATA_HOME"/ufs/*/src/main "$STRATA_HOME"/pom.xml "$STRATA_HOME"/*/pom.xml "$STRATA_HOME"/ufs/*/pom.xml \
      -newer "$marker" -print -quit 2>/dev/null)" ]]; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || strata_die "Strata is not built and Maven is missing (apt-get install -y maven)"
  if [[ "${EUID:-$(id -u)}" == 0 ]]; then
    local untrusted
    untrusted="$(strata_untrusted_source "$STRATA_HOME")"
    [[ -z "$untrusted" ]] || strata_die "refusing to build as root: $untrusted is owned or writable by another account; build as that account (mvn package -pl dist -am) or fix the owners"
  fi
  command -v "$JAVA" >/dev/null 2>&1 || strata_die "no Java found; install a JDK 17 (apt-get install -y openjdk-17-jdk)"
  mkdir -p -m 700 "$STRATA_LOGS_DIR"
  echo "Building Strata (mvn package -pl dist -am, without tests); its output goes to $STRATA_LOGS_DIR/build.log..." >&2
  # What lib/ needs and no more: no test is compiled (mvn verify compiles and runs them), one
  # module per core at once. The first build of a checkout also runs without Error Prone's checks:
  # its sources are as CI checked them, and a module changed later is compiled whole, with them,
  # by this rebuild or by mvn verify. A fresh checkout here: 61 s with the tests compiled and one
  # module at a time, 39 s so (and 94 s with the checks and the tests).
  local checks=()
  [[ -z "$marker" ]] && checks=(-Derrorprone.flags=-XepDisableAllChecks)
  # The archive (dist/target/strata-VERSION.tar.gz) is mvn package's, not this build's.
  if ! (cd "$STRATA_HOME" && mvn -B -T 1C -Dmaven.test.skip=true -Dstrata.archive.skip=true "${checks[@]}" package -pl dist -am) \
      > "$STRATA_LOGS_DIR/build.log" 2>&1; then
    tail -n 30 "$STRATA_LOGS_DIR/build.log" >&2
    strata_die "the build failed; see $STRATA_LOGS_DIR/build.log"
  fi
  touch "$STRATA_HOME/lib/.built"
}

# The class path of process kind $1 (master, worker, fuse, shell, bench): lib/ for every kind; the
# under-storage drivers' folders (lib/ufs/*/, a jar dropped there adds a scheme) for masters and
# workers, which open under-storages, and the benches; lib/bench/ for the benches alone.
strata_classpath() {
  local cp="$STRATA_HOME/lib/*" dir
  case "$1" in
    master|worker|bench)
      for dir in "$STRATA_HOME"/lib/ufs/*/; do
        [[ -d "$dir" ]] && cp+=":${dir}*"
      done
      ;;
  esac
  [[ "$1" == bench ]] && cp+=":$STRATA_HOME/lib/bench/*"
  echo "$cp"
}

# Sets STRATA_JAVA_ARGS to the JVM arguments every Strata process shares; $1 names its log file,
# $2 (optional) is the class path, by default every jar in lib/.
strata_java_args() {
  STRATA_JAVA_ARGS=(-cp "${2:-$STRATA_HOME/lib/*}" "-Dstrata.home=$STRATA_HOME" "-Dstrata.conf.dir=$STRATA_CONF_DIR"
    "-Dstrata.logs.dir=$STRATA_LOGS_DIR" "-Dstrata.log.file=$1.log"
    "-Dlog4j2.configurationFile=$STRATA_CONF_DIR/log4j2.xml")
}

# A short-lived JVM: a small serial-GC heap and the C1 compiler only start fastest; override with
# STRATA_SHELL_JAVA_OPTS. The shell logs through its own slf4j provider (io.strata.shell.log), not
# log4j, whose set-up costs a tenth of a command: logs/shell.log gathers the commands' warnings and
# errors, moved to shell.log.1 past 1 MiB (-Dio.strata.shell.log.level=DEBUG in STRATA_JAVA_OPTS for more).
# Netty's flight-recorder probe, leak detector, native transport (extracted from its jar at every
# start) and pooling allocator cost a command more than they can save it; no perf-data file either.
STRATA_SHELL_OPTS="${STRATA_SHELL_JAVA_OPTS:--Xms32m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData}
  -Dio.grpc.netty.shaded.io.netty.jfr.enabled=false -Dio.netty.jfr.enabled=false
  -Dio.grpc.netty.shaded.io.netty.leakDetection.level=disabled
  -Dio.grpc.netty.shaded.io.netty.transport.noNative=true -Dio.grpc.netty.shaded.io.netty.allocator.type=unpooled
  -Dpicocli.disable.closures=true
  -Dslf4j.provider=io.strata.shell.log.ShellLogProvider -Dslf4j.internal.verbosity=WARN
  -Dio.strata.shell.log.file=$STRATA_LOGS_DIR/shell.log"
# Classes of everyday shell commands, recorded once into a static class-data-sharing archive:
# mapping them halves a command's wall time. Static (-Xshare:dump from a class list) rather than
# dynamic (-XX:ArchiveClassesAtExit), because JDK 17 archives classes compiled for Java 5 (all of
# picocli) only in a static archive. Rebuilt when a jar in lib/ is newer.
STRATA_SHELL_ARCHIVE="$STRATA_HOME/lib/strata-shell.jsa"
STRATA_CDS_QUIET="-Xlog:cds=off -Xlog:cds+dynamic=off"

# True when class archive $1 exists and no jar in lib/ is newer (a build deletes lib/ anyway).
strata_archive_fresh() {
  [[ -f "$1" ]] && [[ -z "$(find "$STRATA_HOME/lib" -name '*.jar' -newer "$1" -print -quit)" ]]
}

# The shell's class path: its jar alone, whose manifest names the jars it needs (see shell/pom.xml);
# empty (so every jar in lib/) if there is none.
strata_shell_classpath() {
  local jar found=""
  for jar in "$STRATA_HOME"/lib/strata-shell-*.jar; do
    [[ -e "$jar" ]] && found="$jar"
  done
  echo "$found"
}

strata_shell_archive_fresh() {
  strata_archive_fresh "$STRATA_SHELL_ARCHIVE"
}

# Records the archive: lists the classes the everyday read-only commands load against the
# configured cluster, then dumps them (with the JDK's own) into the archive.
strata_build_shell_archive() {
  strata_shell_archive_fresh && return 0
  [[ -w "$STRATA_HOME/lib" ]] || return 0
  local tmp="$STRATA_SHELL_ARCHIVE.$$" began
  began=$(strata_now_ms)
  strata_java_args shell "$(strata_shell_classpath)"
  # shellcheck disable=SC2086
  if "$JAVA" $STRATA_SHELL_OPTS "-XX:DumpLoadedClassList=$tmp.classes" "${STRATA_JAVA_ARGS[@]}" \
      io.strata.shell.ClassArchiveTraining >/dev/null 2>&1 \
    && "$JAVA" $STRATA_SHELL_OPTS -Xshare:dump "-XX:SharedClassListFile=$tmp.classes" \
      "-XX:SharedArchiveFile=$tmp" "${STRATA_JAVA_ARGS[@]}" >/dev/null 2>&1 && [[ -s "$tmp" ]]; then
    mv -f "$tmp" "$STRATA_SHELL_ARCHIVE"
    echo "Recorded the shell's classes for quicker commands in $(( $(strata_now_ms) - began )) ms ($STRATA_SHELL_ARCHIVE)."
  fi
  rm -f "$tmp" "$tmp.classes"
}

strata_now_ms() {
  date +%s%3N
}
