#!/usr/bin/env bash
# Installs Debian's `chromium` where there is no browser to open the
# report page with: the page's browser test
# (crates/cli/tests/report/browser.rs) opens pages in headless Chromium
# and fails without it. The README's test command and .ci/run call this.
# Does nothing when `chromium` is on PATH, or when TPSIM_CHROMIUM names a
# browser the test can start instead.
set -euo pipefail

browser=${TPSIM_CHROMIUM:-chromium}
if command -v "$browser" >/dev/null; then
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    echo "install-chromium.sh: no $browser and no apt-get: install Chromium with this system's packages, or name it in TPSIM_CHROMIUM" >&2
    exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
fi
echo "install-chromium.sh: installing Debian's chromium for the report page's browser test" >&2
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends chromium
