#!/usr/bin/env bash
# Lays out lib/ of the checkout ROOT the way the archive ships it, once Maven has copied the
# runtime jars of master, worker, shell and fuse into lib/ and the shaded strata:// jar into
# lib/hadoop/, then packs the archive:
#   lib/ufs/NAME/  each driver ufs/NAME: its jar and those of its dependencies lib/ lacks
#   lib/bench/     strata bench: its jar and those of its dependencies neither lib/ nor a driver has
#   lib/build.properties  version, commit and build time, for strata version
#   ARCHIVE        unless SKIP is true: bin/, conf/, docs/, lib/, README.md and NOTICE (the licences
#                  of every bundled jar, from bench/target/THIRD-PARTY.txt) under strata-VERSION/
# usage: lib-layout.sh ROOT VERSION SKIP ARCHIVE
set -euo pipefail
root="$1" version="$2" skip_archive="$3" archive="$4"
lib="$root/lib"

# Copies the jars $3... into folder $1 unless a jar of the same name is in one of the folders $2
# (colon-separated).
copy_missing() {
  local into="$1" have="$2" jar dir skip
  shift 2
  mkdir -p "$into"
  for jar in "$@"; do
    [[ -e "$jar" ]] || continue
    skip=""
    IFS=: read -ra dirs <<< "$have"
    for dir in "${dirs[@]}"; do
      [[ -e "$dir/$(basename "$jar")" ]] && skip=1
    done
    [[ -n "$skip" ]] || cp -p "$jar" "$into/"
  done
}

drivers=""
for module in "$root"/ufs/*/; do
  name="$(basename "$module")"
  own="$module/target/strata-ufs-$name-$version.jar"
  [[ -f "$own" ]] || { echo "lib-layout: $own is missing: build ufs/$name first" >&2; exit 1; }
  copy_missing "$lib/ufs/$name" "$lib" "$own" "$module"/target/dist-lib/*.jar
  drivers+=":$lib/ufs/$name"
done
bench="$root/bench/target/strata-bench-$version.jar"
[[ -f "$bench" ]] || { echo "lib-layout: $bench is missing: build bench first" >&2; exit 1; }
copy_missing "$lib/bench" "$lib$drivers" "$bench" "$root"/bench/target/dist-lib/*.jar

# What strata version prints beside the version: the commit and when this lib/ was built.
commit="$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
if [[ "$commit" != unknown ]] && ! git -C "$root" diff --quiet HEAD -- 2>/dev/null; then
  commit+="-dirty"
fi
printf 'version=%s\ncommit=%s\nbuilt=%s\n' "$version" "$commit" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  > "$lib/build.properties"

[[ "$skip_archive" == true ]] && exit 0
third_party="$root/bench/target/THIRD-PARTY.txt"
[[ -f "$third_party" ]] || { echo "lib-layout: $third_party is missing: build bench first" >&2; exit 1; }
stage="$(dirname "$archive")/stage"
rm -rf "$stage" && mkdir -p "$stage"
{
  echo "Strata $version"
  echo
  echo "This distribution bundles the third-party libraries below, in lib/ and its folders, each"
  echo "under the licence named before it; the shaded lib/hadoop/ jar holds a subset of them."
  cat "$third_party"
} > "$stage/NOTICE"
# Only what an install needs: no build marker, class archives or anything a run left in lib/.
tar -czf "$archive.tmp" --owner=0 --group=0 --sort=name \
  --exclude=lib/.built --exclude='*.jsa' --exclude='*.jsa.*' \
  --exclude=conf/strata-site.properties \
  --transform "s,^,strata-$version/," \
  -C "$root" bin conf docs lib README.md -C "$stage" NOTICE
mv -f "$archive.tmp" "$archive"
