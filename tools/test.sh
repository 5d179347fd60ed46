#!/usr/bin/env bash
# Run the test suite of the build in ./build (GPU tests skip themselves without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
