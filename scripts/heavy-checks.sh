#!/usr/bin/env bash
# Runs the checks too heavy for CI (the tests marked #[ignore], such as the
# coverage of batch-means intervals at heavy load), in release mode, and
# prints what they measure. Not part of CI: a few minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test it -- --ignored --nocapture
