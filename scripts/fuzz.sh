#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/fuzz_*.cpp) for a fixed budget with a corpus seeded from the
# real files in the repository, then reports executions and coverage per target.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (default 60 s, all targets)
#
# Builds with clang in build-fuzz (-DSEXTANT_FUZZ=ON: -fsanitize=fuzzer,address,undefined).
# Findings (crash-*, leak-*, timeout-*, oom-*) are copied to tests/data/fuzz-regressions/ as
# <target>--<name>; every input already there is replayed first, and the script exits 1 when a
# target finds something or a regression input fails again. Summary: build-fuzz/fuzz-summary.md.
set -uo pipefail
cd "$(dirname "$0")/.."
BUDGET="${1:-60}"
shift || true
BUILD="${FUZZ_BUILD:-build-fuzz}"
ALL=(fuzz_kineto_json fuzz_kineto_gzip fuzz_scenario_yaml fuzz_hf_config fuzz_validation_csv fuzz_incident_csv
     fuzz_request_trace_csv)
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL[@]}"); fi
REG=tests/data/fuzz-regressions
export SEXTANT_DATA_DIR="$PWD/data"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEXTANT_FUZZ=ON \
    -DSEXTANT_BUILD_BENCH=OFF -DSEXTANT_BUILD_PYTHON=OFF >/dev/null || exit 2
fi
# FUZZ_NO_BUILD=1: use the binaries already in $BUILD/fuzz (e.g. while another build runs there).
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  cmake --build "$BUILD" -j "${JOBS:-$(nproc)}" --target "${TARGETS[@]}" || exit 2
fi

# ---- seed corpora from the repository's real inputs
seed() {  # seed TARGET FILE...
  local dir="$BUILD/fuzz-corpus/$1"
  shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/seed-$(basename "$f")"; done
}
prefixed() {  # prefixed TARGET MODE FILE: gzip-target seed = mode byte + 2 length bytes + data
  local dir="$BUILD/fuzz-corpus/$1"
  mkdir -p "$dir"
  { printf "\\x$(printf %02x "$2")\\xff\\xff"; cat "$3"; } >"$dir/seed-$2-$(basename "$3")"
}
SEEDTMP="$(mktemp -d)"
trap 'rm -rf "$SEEDTMP"' EXIT
synth="$SEEDTMP/synth"
"${SEXTANT_BIN:-build/sextant}" trace synth --out "$synth" --ranks 2 --steps 1 --layers 4 -q >/dev/null 2>&1 ||
  mkdir -p "$synth"
for gz in $(find tests/data/trace -name '*.json.gz' | sort); do
  # Plain JSON seeds: the first 60 kB of each real trace (libFuzzer's -max_len below).
  zcat "$gz" | head -c 60000 >"$SEEDTMP/$(basename "$gz" .gz)"
done
seed fuzz_kineto_json "$SEEDTMP"/*.json "$synth"/*.json
for gz in $(find tests/data/trace -name '*.json.gz' -size -60k | sort); do prefixed fuzz_kineto_gzip 0 "$gz"; done
for j in "$SEEDTMP"/*.json; do prefixed fuzz_kineto_gzip 1 "$j"; prefixed fuzz_kineto_gzip 2 "$j"; done
seed fuzz_scenario_yaml data/examples/*.yaml tests/golden/scenarios/*.yaml
seed fuzz_hf_config tests/data/catalog/*.json
seed fuzz_validation_csv data/validation/*.csv
{ echo "time_h,category,component,node_lost"; for i in $(seq 1 20); do echo "$((i * 31 % 700)).5,gpu,gpu,true"; done;
  echo "12,network,nic,false"; echo "40,host,cpu,0"; } >"$SEEDTMP/incidents.csv"
printf 'time_s,category\n3600,gpu\n7200,"bad, config"\n' >"$SEEDTMP/incidents-s.csv"
seed fuzz_incident_csv "$SEEDTMP"/incidents*.csv
{ echo "arrival_s,prompt_tokens,output_tokens,prefix_group,prefix_tokens";
  for i in $(seq 0 30); do echo "$i.25,$((100 + i * 7)),$((20 + i)),$((i % 3)),$((i % 50))"; done; } >"$SEEDTMP/requests.csv"
printf 'timestamp_s,prompt_tokens,output_tokens\n0,10,5\n0.5,20,8\n' >"$SEEDTMP/requests-ts.csv"
seed fuzz_request_trace_csv "$SEEDTMP"/requests*.csv

max_len() {
  case "$1" in
    fuzz_kineto_json | fuzz_kineto_gzip) echo 65536 ;;
    fuzz_validation_csv) echo 32768 ;;
    *) echo 8192 ;;
  esac
}

status=0
SUMMARY="${FUZZ_SUMMARY:-$BUILD/fuzz-summary.md}"
{
  echo "| target | seconds | executions | exec/s | cov | ft | corpus | findings |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$SUMMARY"
mkdir -p "$REG"
for t in "${TARGETS[@]}"; do
  bin="$BUILD/fuzz/$t"
  art="$BUILD/fuzz-artifacts/$t/"
  log="$BUILD/fuzz-logs/$t.log"
  mkdir -p "$art" "$(dirname "$log")"
  # Replay the regression inputs of this target: each must now pass.
  for r in "$REG/$t--"*; do
    [ -f "$r" ] || continue
    if ! "$bin" -runs=1 "$r" >"$log.replay" 2>&1; then
      echo "REGRESSION: $r fails again (see $log.replay)"
      status=1
    fi
  done
  "$bin" -max_total_time="$BUDGET" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art" "$BUILD/fuzz-corpus/$t" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*')
  corp=$(echo "$last" | grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' | sed 's/corp: //')
  eps=$(grep -o 'exec/s: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  found=()
  for a in "$art"*; do
    [ -f "$a" ] || continue
    cp "$a" "$REG/$t--$(basename "$a")"
    found+=("$(basename "$a")")
  done
  if [ $rc -ne 0 ] || [ ${#found[@]} -gt 0 ]; then
    status=1
    echo "FINDING in $t (exit $rc): ${found[*]:-see $log}"
    tail -40 "$log"
  fi
  echo "| $t | $BUDGET | ${execs:-?} | ${eps:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | ${found[*]:-none} |" >>"$SUMMARY"
done
cat "$SUMMARY"
exit $status
