#!/usr/bin/env bash
# Side-by-side comparison of Shoal and GRDB: every workload runs against both
# engines in ONE process, alternating round by round, and the table printed
# at the end gives Shoal/GRDB ratios (see shared/WORKLOADS.md: absolute times
# on shared machines drift; ratios taken in one run hold).
#
#   Benchmarks/compare.sh                      # N = 100,000 dogs, all workloads
#   Benchmarks/compare.sh --only W1,W3         # some workloads
#   Benchmarks/compare.sh --dogs 1000000 --reopen-dogs 1000000
#
# Progress goes to stderr, the markdown table to stdout. Scratch stores are
# made under $SHOAL_BENCH_DIR (default: the temporary directory).
set -euo pipefail
cd "$(dirname "$0")"
flags=(-c release)
swift build "${flags[@]}" --product compare >&2
exec "$(swift build "${flags[@]}" --show-bin-path)/compare" "$@"
