#!/usr/bin/env bash
# Installs every system dependency of Sextant with apt-get. Idempotent: packages already
# present are skipped, so a second run costs a dpkg query and nothing else.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libsimdjson-dev zlib1g-dev libdeflate-dev libisal-dev libsqlite3-dev libtbb-dev libre2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-dev python3-pybind11 pybind11-dev python3-pytest python3-yaml python3-pandas
  libopenblas-dev libopenmpi-dev openmpi-bin
  clang libclang-rt-14-dev  # libFuzzer targets (scripts/fuzz.sh, docs/robustness.md)
)
# HTML reports and their browser test: Debian's chromium (headless). node and npm install the
# charting library (scripts/install-npm-deps.sh); a machine that already has node from elsewhere
# (e.g. a NodeSource package, which bundles npm) keeps it.
PKGS+=(chromium fonts-dejavu-core)
# The Python module installs with pip from the source tree, without network (docs/python.md).
# (into a virtual environment with the system's packages: Debian's Python refuses pip installs).
PKGS+=(python3-pip python3-setuptools python3-wheel python3-venv)
# Locale definitions: python/tests/test_sextant.py compiles a decimal-comma locale (de_DE) to check
# that numbers are read and written the same under it (core/c_locale.hpp).
PKGS+=(locales)
command -v npm >/dev/null 2>&1 || PKGS+=(nodejs npm)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# npm packages (ECharts, playwright-core) into a gitignored folder; idempotent.
bash "$(dirname "${BASH_SOURCE[0]}")/install-npm-deps.sh"
