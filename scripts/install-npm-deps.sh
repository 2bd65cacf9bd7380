#!/usr/bin/env bash
# Installs the build-time JavaScript dependencies of Sextant (scripts/npm/package.json, pinned by
# scripts/npm/package-lock.json): Apache ECharts, inlined into HTML reports, and playwright-core,
# which drives Debian's chromium in the report browser test.
#
# They go into a gitignored folder, $SEXTANT_NPM_DIR (default: .deps/npm in the source tree), never
# into tracked files. Idempotent: when the installed lock file equals the pinned one and the files
# the build uses exist, nothing is done. Needs node and npm (scripts/install-deps.sh installs them).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${SEXTANT_NPM_DIR:-$ROOT/.deps/npm}"
SRC="$ROOT/scripts/npm"
need=(node_modules/echarts/dist/echarts.min.js node_modules/playwright-core/package.json)

up_to_date() {
  cmp -s "$SRC/package-lock.json" "$DEST/package-lock.json" || return 1
  for f in "${need[@]}"; do [ -f "$DEST/$f" ] || return 1; done
}

if up_to_date; then
  echo "install-npm-deps: up to date in $DEST"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-npm-deps: npm not found (run scripts/install-deps.sh, which installs nodejs and npm)" >&2
  exit 1
fi
mkdir -p "$DEST"
# Install into a fresh folder beside DEST and swap it in, so that an interrupted install never
# leaves a half-filled node_modules that looks complete.
TMP="$(mktemp -d "$DEST.tmp.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
cp "$SRC/package.json" "$SRC/package-lock.json" "$TMP/"
(cd "$TMP" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
for f in "${need[@]}"; do
  [ -f "$TMP/$f" ] || { echo "install-npm-deps: $f missing after npm ci" >&2; exit 1; }
done
rm -rf "$DEST/node_modules"
mv "$TMP/node_modules" "$DEST/node_modules"
cp "$SRC/package.json" "$DEST/package.json"
cp "$SRC/package-lock.json" "$DEST/package-lock.json"
echo "install-npm-deps: installed $(cd "$DEST" && node -e 'const l=require("./package-lock.json").packages;console.log(Object.keys(l).filter(k=>k.split("node_modules/").length==2).map(k=>k.slice(13)+"@"+l[k].version).join(" "))') into $DEST"
