#!/usr/bin/env bash
# Runs versitygw's S3 conformance tests (its `test` command, v1.8.0) one by one against the S3
# endpoint of a local cluster started from this checkout (bin/strata-start.sh local), for the
# groups that apply to a gateway without versioning, ACLs, policies, object lock, IAM or websites.
# Prints PASS/FAIL per test and a count per group; docs/s3-conformance.md holds the last report.
#
#   go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
#   bin/strata-start.sh local && integration-tests/conformance/versitygw.sh > report.txt
#
# Every test makes its buckets from test-bucket-1 on: the buckets a failed test leaves are removed
# through the shell after it, or the next would fail at CreateBucket.
set -euo pipefail
cd "$(dirname "$0")/../.."
vgw="${VERSITYGW:-$HOME/go/bin/versitygw}"
endpoint="${STRATA_S3_ENDPOINT:-http://127.0.0.1:7713}"
keys="$(grep -v '^#' conf/s3-credentials | head -n 1)"
groups='PutObject|CopyObject|CompleteMultipartUpload|GetObject|HeadObject|Authentication|PresignedAuth|ListObjectsV2|ListObjects|CreateMultipartUpload|UploadPartCopy|CreateBucket|UploadPart|UnsignedStreamingPayloadTrailer|SignedStreamingPayloadTrailer|SignedStreamingPayload|ListMultipartUploads|DeleteObject|ListParts|ListBuckets|DeleteObjects|AbortMultipartUpload|DeleteBucket|GetBucketLocation|HeadBucket'
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# AWS_CA_BUNDLE makes the Go SDK replace the HTTP client versitygw's tests configure.
"$vgw" test --help | awk '/Runs .* integration test/ {print $1}' | grep -E "^(${groups})_" |
  while read -r t; do
    out="$(cd "$work" && timeout 30 env -u AWS_CA_BUNDLE "$vgw" test -a "${keys%%:*}" -s "${keys#*:}" \
      -e "$endpoint" "$t" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' || true)"
    if grep -q "^PASS $t" <<< "$out"; then
      echo "PASS $t"
    else
      echo "FAIL $t :: $(grep -v '^RUN' <<< "$out" | head -n 1 | cut -c1-300)"
    fi
    left="$(ls -d underFSStorage/*test-bucket-* 2>/dev/null | sed 's|^underFSStorage||' || true)"
    if [[ -n "$left" ]]; then
      # shellcheck disable=SC2086
      bin/strata fs rm -R $left > /dev/null 2>&1 || true
    fi
  done | tee "$work/results"
echo
awk '{ split($2, a, "_"); t[a[1]]++; if ($1 == "PASS") p[a[1]]++ }
  END { for (g in t) printf "%-32s %3d of %3d\n", g, p[g], t[g] }' "$work/results" | sort
