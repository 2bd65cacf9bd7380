#!/usr/bin/env bash
# Runs Sextant's GPU benchmark suite on a machine with an NVIDIA GPU and stores the results.
#   scripts/gpu-bench.sh [BUILD_DIR] [DB] [extra sextant bench options...]
# Needs a build configured with a CUDA toolkit (CMake prints "sextant bench: CUDA ... found").
# Writes the run into DB (default: gpu-bench.db in the current folder), prints it, exports JSON
# and CSV next to the database, and with PEAK_FROM set fits a catalog entry from the GEMMs.
set -euo pipefail
BUILD=${1:-build}
DB=${2:-gpu-bench.db}
shift $(( $# > 2 ? 2 : $# )) || true
BIN="$BUILD/sextant"
[ -x "$BIN" ] || { echo "gpu-bench: $BIN not built (cmake --build $BUILD --target sextant)" >&2; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
OUT="${DB%.db}"
"$BIN" bench --suite gpu --db "$DB" --json "$OUT.json" --csv "$OUT-csv" "$@"
"$BIN" history list --db "$DB" --limit 3
# The CUDA backend does not know the GPU's peak: with PEAK_FROM=<catalog accelerator id> (e.g.
# h100-sxm-80gb) the efficiency curve is fitted against that entry's published peaks.
if [ -n "${PEAK_FROM:-}" ]; then
  "$BIN" calibrate --db "$DB" --suite gpu --peak-from "$PEAK_FROM" --id "${PEAK_FROM}-calibrated" --out "$OUT-calibrated.yaml"
fi
echo "gpu-bench: stored in $DB ($OUT.json, $OUT-csv/)"
