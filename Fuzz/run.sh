#!/usr/bin/env bash
# Builds and runs Shoal's fuzz targets (libFuzzer, with AddressSanitizer).
#
#   Fuzz/run.sh build                 build the sanitized library and every target
#   Fuzz/run.sh seeds                 (re)generate the seed corpora from Fixtures/ and the query tests
#   Fuzz/run.sh run [SECONDS] [T...]  build, seed, then fuzz each target T (default: all) for SECONDS
#                                     (default 40); fails on the first crash, hang (> 10 s) or
#                                     allocation over 2 GB, leaving the input in .build/fuzz/artifacts
#   Fuzz/run.sh fuzz [SECONDS] [T...] the same with the targets already built (run.sh build)
#   Fuzz/run.sh list                  the target names
#
# Targets (Fuzz/Targets/<name>.swift): record, log, snapshot, database, schema, predicate.
# The library is built by SwiftPM in its own scratch path with -sanitize=fuzzer,address, then each
# harness is compiled and linked against it with swiftc. Inputs found to add coverage accumulate in
# .build/fuzz/corpus/<target>; libFuzzer's options may be added through FUZZ_OPTIONS.
# FUZZ_CONFIGURATION=debug builds the library unoptimised: it builds in well under half the time
# and runs several times slower, which suits CI's short pass; the default, release, suits long runs.
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT=$(pwd)
SCRATCH=$ROOT/.build/fuzz
CONFIGURATION=${FUZZ_CONFIGURATION:-release}
case "$CONFIGURATION" in
debug) extra=() ;;
release) extra=(-Xswiftc -enable-testing) ;;
*) echo "FUZZ_CONFIGURATION must be debug or release, not '$CONFIGURATION'" >&2; exit 2 ;;
esac
PRODUCTS=$SCRATCH/$CONFIGURATION
BIN=$SCRATCH/bin/$CONFIGURATION
TARGETS=(record log snapshot database schema predicate)

build() {
    swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH" --target ShoalTestSupport \
        -Xswiftc -sanitize=fuzzer,address "${extra[@]}" -Xswiftc -g
    mkdir -p "$BIN"
    local objects=()
    for module in InternalCollectionsUtilities OrderedCollections Logging Shoal ShoalTestSupport; do
        objects+=("$PRODUCTS/$module.build"/*.o)
    done
    # The harnesses compile side by side (each one is mostly its link).
    local compiling=()
    for target in "${TARGETS[@]}"; do
        local source=$ROOT/Fuzz/Targets/$target.swift
        # Up to date unless its sources or any object of the library are newer.
        if [ -x "$BIN/$target" ] && [ "$BIN/$target" -nt "$source" ] && [ "$BIN/$target" -nt "$ROOT/Fuzz/Support/FuzzSupport.swift" ] \
            && [ -z "$(find "${objects[@]}" -newer "$BIN/$target" | head -1)" ]; then
            continue
        fi
        echo "== compiling fuzz target $target"
        swiftc -O -g -parse-as-library -sanitize=fuzzer,address -module-name "Fuzz_$target" \
            -I "$PRODUCTS/Modules" \
            -Xcc -fmodule-map-file="$ROOT/Sources/CLZ4/module.modulemap" \
            -Xcc -fmodule-map-file="$ROOT/Sources/CXXHash/module.modulemap" \
            -Xcc -fmodule-map-file="$ROOT/Sources/CSwiftRuntime/module.modulemap" \
            -Xcc -fmodule-map-file="$ROOT/Sources/CShoalScan/module.modulemap" \
            "$ROOT/Fuzz/Support/FuzzSupport.swift" "$source" "${objects[@]}" \
            -llz4 -lxxhash -o "$BIN/$target" 2> >(grep -v "Cannot export local symbol" >&2) &
        compiling+=($!)
    done
    local pid
    for pid in "${compiling[@]}"; do wait "$pid"; done
}

seeds() {
    for target in "${TARGETS[@]}"; do
        rm -rf "$SCRATCH/seeds/$target"
        SHOAL_FUZZ_SEEDS="$SCRATCH/seeds/$target" SHOAL_FUZZ_FIXTURES="$ROOT/Fixtures" SHOAL_FUZZ_TESTS="$ROOT/Tests" \
            "$BIN/$target" -runs=0 >/dev/null 2>&1 || true
        echo "seeds for $target: $(ls "$SCRATCH/seeds/$target" 2>/dev/null | wc -l)"
    done
}

run() {
    build
    fuzz "$@"
}

fuzz() {
    local seconds=${1:-40}
    shift || true
    local chosen=("$@")
    [ ${#chosen[@]} -gt 0 ] || chosen=("${TARGETS[@]}")
    seeds
    mkdir -p "$SCRATCH/artifacts" "$SCRATCH/logs"
    local summary=()
    local failed=()
    for target in "${chosen[@]}"; do
        mkdir -p "$SCRATCH/corpus/$target"
        local dict=()
        [ -f "$ROOT/Fuzz/$target.dict" ] && dict=(-dict="$ROOT/Fuzz/$target.dict")
        echo "== fuzzing $target for ${seconds}s"
        local log=$SCRATCH/logs/$target.log
        local status=0
        # Swift's own crash backtracer would fight AddressSanitizer's report.
        SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=0} \
            "$BIN/$target" "$SCRATCH/corpus/$target" "$SCRATCH/seeds/$target" "${dict[@]}" \
            -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
            -max_len=65536 -print_final_stats=1 -artifact_prefix="$SCRATCH/artifacts/$target-" \
            ${FUZZ_OPTIONS:-} >"$log" 2>&1 || status=$?
        local done_line executions
        done_line=$(grep -E "^#[0-9]+.*(DONE|cov:)" "$log" | tail -1 || true)
        executions=$(grep -E "stat::number_of_executed_units" "$log" | awk '{print $2}' || true)
        summary+=("$target: ${executions:-?} executions in ${seconds}s; ${done_line}")
        if [ "$status" != 0 ]; then
            grep -E "Fatal error|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY|Test unit written" "$log" | head -20 >&2
            echo "fuzz target $target FAILED (exit $status); log $log, input in $SCRATCH/artifacts" >&2
            failed+=("$target")
        fi
    done
    printf '%s\n' "${summary[@]}"
    if [ ${#failed[@]} -gt 0 ]; then
        echo "fuzzing found crashes in: ${failed[*]}" >&2
        return 1
    fi
}

case "${1:-}" in
build) build ;;
seeds) build && seeds ;;
run) shift; run "$@" ;;
fuzz) shift; fuzz "$@" ;;
list) printf '%s\n' "${TARGETS[@]}" ;;
*) sed -n '2,17p' "$0"; exit 2 ;;
esac
