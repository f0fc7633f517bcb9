# Environment of every bin/ script and Strata process, sourced from $STRATA_CONF_DIR.
# Any configuration key may be set here as STRATA_<KEY> (dots become underscores), e.g.
#   export STRATA_WORKER_PAGE_STORE_MEM_SIZE=4GiB
# Unknown STRATA_ variables are refused at start, so a typo cannot pass unnoticed.

# JVM options of each process (defaults shown):
# export STRATA_MASTER_JAVA_OPTS="-Xms64m -Xmx512m -XX:MaxDirectMemorySize=256m -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError"
# export STRATA_WORKER_JAVA_OPTS="-Xms256m -Xmx1g -XX:MaxDirectMemorySize=2g -XX:+ExitOnOutOfMemoryError"
# export STRATA_FUSE_JAVA_OPTS="-Xms64m -Xmx512m -XX:MaxDirectMemorySize=512m -XX:+ExitOnOutOfMemoryError"
# export STRATA_SHELL_JAVA_OPTS="-Xms32m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData"
# Options added to every process:
# export STRATA_JAVA_OPTS=""
# The Java binary (default: $JAVA_HOME/bin/java, else java on the PATH):
# export STRATA_JAVA=/usr/lib/jvm/java-17-openjdk-amd64/bin/java

# Where logs and pid files go (default: logs/ in the install):
# export STRATA_LOGS_DIR=/var/log/strata

# On a multi-host cluster, each worker registers under its own name:
# export STRATA_WORKER_HOSTNAME="$(hostname -f)"
