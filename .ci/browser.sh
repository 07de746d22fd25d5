#!/usr/bin/env bash
# browser.sh - a headless Chromium for the test that loads the demo's
# reports/index.html in a real browser (cmd/saber browser_test.go). Debian's
# chromium-headless-shell: Chromium's own headless build from Debian's
# chromium source package, without the desktop browser's X11 and GTK
# dependencies. Installed once per machine (apt keeps it); the last (only)
# line on stdout is an env file exporting SABER_CHROMIUM and
# SABER_TEST_ARTIFACTS (where the test keeps its screenshot):
#
#   . "$(bash .ci/browser.sh | tail -1)"
set -euo pipefail
CI_DIR=${SABER_CI_DIR:-/tmp/saber-ci}
mkdir -p "$CI_DIR/artifacts"
if ! command -v chromium-headless-shell >/dev/null 2>&1; then
  [[ $(id -u) == 0 ]] || { echo "browser.sh: installing chromium-headless-shell needs root" >&2; exit 1; }
  echo "browser.sh: installing Debian's chromium-headless-shell" >&2
  apt-get -o DPkg::Lock::Timeout=300 update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq chromium-headless-shell >&2
fi
bin=$(command -v chromium-headless-shell)
"$bin" --version >&2 || true
env_file=$CI_DIR/browser.env
printf 'export SABER_CHROMIUM=%q\nexport SABER_TEST_ARTIFACTS=%q\n' "$bin" "$CI_DIR/artifacts" > "$env_file"
echo "$env_file"
