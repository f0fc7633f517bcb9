# Sourced by the bin/ scripts: where Strata lives, its configuration, Java, and the build.
# Honours STRATA_CONF_DIR (the conf folder to use) and STRATA_LOGS_DIR (logs and pid files),
# so several processes or clusters can run from one install.

STRATA_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STRATA_CONF_DIR="${STRATA_CONF_DIR:-$STRATA_HOME/conf}"
if [[ -f "$STRATA_CONF_DIR/strata-env.sh" ]]; then
  # shellcheck disable=SC1091
  . "$STRATA_CONF_DIR/strata-env.sh"
fi
STRATA_LOGS_DIR="${STRATA_LOGS_DIR:-$STRATA_HOME/logs}"
export STRATA_HOME STRATA_CONF_DIR STRATA_LOGS_DIR
# A multi-master cluster started by `strata-start.sh local --masters N` tells every later
# command where its masters are.
if [[ -f "$STRATA_LOGS_DIR/local-cluster.env" ]]; then
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
  if [[ -n "$marker" ]] && [[ -z "$(find "$STRATA_HOME" -path "$STRATA_HOME/lib" -prune -o \
      \( -path '*/src/main/*' -o -name pom.xml \) -newer "$marker" -print -quit 2>/dev/null)" ]]; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || strata_die "Strata is not built and Maven is missing (apt-get install -y maven)"
  command -v "$JAVA" >/dev/null 2>&1 || strata_die "no Java found; install a JDK 17 (apt-get install -y openjdk-17-jdk)"
  mkdir -p "$STRATA_LOGS_DIR"
  echo "Building Strata (mvn -DskipTests package); its output goes to $STRATA_LOGS_DIR/build.log..." >&2
  if ! (cd "$STRATA_HOME" && mvn -B -DskipTests package) > "$STRATA_LOGS_DIR/build.log" 2>&1; then
    tail -n 30 "$STRATA_LOGS_DIR/build.log" >&2
    strata_die "the build failed; see $STRATA_LOGS_DIR/build.log"
  fi
}

# Sets STRATA_JAVA_ARGS to the JVM arguments every Strata process shares; $1 names its log file.
strata_java_args() {
  STRATA_JAVA_ARGS=(-cp "$STRATA_HOME/lib/*" "-Dstrata.home=$STRATA_HOME" "-Dstrata.conf.dir=$STRATA_CONF_DIR"
    "-Dstrata.logs.dir=$STRATA_LOGS_DIR" "-Dstrata.log.file=$1.log"
    "-Dlog4j2.configurationFile=$STRATA_CONF_DIR/log4j2.xml")
}

strata_now_ms() {
  date +%s%3N
}
