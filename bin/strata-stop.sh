#!/usr/bin/env bash
# Stops Strata processes that bin/strata-start.sh started (found by their pid files in
# $STRATA_LOGS_DIR); nothing else is touched.
#
#   strata-stop.sh [all]         what strata-start.sh all started: the S3 endpoints and workers, then
#                                the masters on every host of $STRATA_CONF_DIR/workers and masters
#                                (ssh for other hosts), and whatever else was started from here
#                                (default)
#   strata-stop.sh local         every FUSE mount, worker and master started from here
#   strata-stop.sh master|worker every master (or worker) started from here
#   strata-stop.sh s3            the S3 endpoint started from here
#   strata-stop.sh masters|workers  on every host of $STRATA_CONF_DIR/masters (workers, with their S3
#                                endpoints), ssh for others
#   strata-stop.sh fuse [MOUNT_POINT]  the FUSE mount on MOUNT_POINT, or every one started from here
#                                      (stopping unmounts; readers still inside get an error)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/strata-process.sh"

what="${1:-all}"

# The S3 endpoints first: each serves through its host's worker.
stop_workers() {
  strata_on_hosts workers strata-stop.sh s3
  strata_on_hosts workers strata-stop.sh worker
}

case "$what" in
  fuse)
    if [[ -n "${2:-}" ]]; then
      name="$(strata_fuse_name "$2")"
      target="$(realpath -ms -- "$2")"
      if [[ -n "$(strata_running_pid "$name")" ]]; then
        strata_stop "$name"
        if strata_fuse_mounted "$target"; then
          # Left behind: killed after 30 s, or stuck (a thread blocked in the kernel on the mount).
          strata_fuse_abort "$target"
          fusermount -u -z "$target" 2>/dev/null || umount -l "$target"
          echo "unmounted $target (left behind by its process; its FUSE connection was aborted)"
        fi
      elif strata_fuse_mounted "$target"; then
        # Its process died: the kernel still holds the mount, and every access to it fails, or
        # waits for good if a thread of the process is stuck in the kernel (its connection is
        # aborted first).
        rm -f "$STRATA_LOGS_DIR/$name.pid" "$STRATA_LOGS_DIR/$name.ready"
        strata_fuse_abort "$target"
        fusermount -u -z "$target" 2>/dev/null || umount -l "$target"
        echo "unmounted $target (its process was gone)"
      else
        echo "strata: NOT_FOUND: $target is not a Strata mount" >&2
        exit 1
      fi
    else
      strata_stop_kind fuse
    fi
    ;;
  all|local)
    strata_stop_kind fuse
    quiet=""
    if [[ "$what" == all && -f "$STRATA_CONF_DIR/workers" && -f "$STRATA_CONF_DIR/masters" ]]; then
      # Every host's, as strata-start.sh all started them (this host's among them when listed).
      stop_workers
      strata_on_hosts masters strata-stop.sh master
      quiet=quiet
    fi
    # What was started here otherwise (a local cluster, say); the lists, if any, said the rest.
    strata_stop_kind s3 quiet
    strata_stop_kind worker $quiet
    strata_stop_kind master $quiet
    rm -f "$STRATA_LOGS_DIR/local-cluster.env"
    ;;
  master|worker|s3)
    strata_stop_kind "$what"
    # The last of this host's processes gone: its shells have no cluster to find any more.
    if ! compgen -G "$STRATA_LOGS_DIR/*.pid" > /dev/null; then
      rm -f "$STRATA_LOGS_DIR/local-cluster.env"
    fi
    ;;
  masters) strata_on_hosts masters strata-stop.sh master ;;
  workers) stop_workers ;;
  *)
    echo "usage: strata-stop.sh [all|local|master|worker|s3|masters|workers|fuse [MOUNT_POINT]]" >&2
    exit 2
    ;;
esac
