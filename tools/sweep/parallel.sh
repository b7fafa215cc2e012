#!/usr/bin/env bash
# Every point of a Whereabouts sweep with GNU parallel, on this machine or over ssh
# (docs/sweeps.md).
#
#   tools/sweep/parallel.sh SWEEP_DIR [JOBS]                 # this machine, JOBS at once
#   tools/sweep/parallel.sh SWEEP_DIR 4 -S host1,host2       # over ssh: SWEEP_DIR must be
#                                                            # shared, whereabouts installed
# then: whereabouts sweep merge SWEEP_DIR
set -euo pipefail
dir=${1:?usage: tools/sweep/parallel.sh SWEEP_DIR [JOBS] [parallel options...]}
jobs=${2:-$(nproc)}
shift $(( $# < 2 ? $# : 2 ))
bin=${WHEREABOUTS:-whereabouts}
points=$("$bin" sweep count "$dir")
seq 0 $((points - 1)) | parallel --jobs "$jobs" --halt never "$@" "$bin" sweep run "$dir" --index {}
