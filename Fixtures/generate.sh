#!/usr/bin/env bash
# Regenerates every fixture in Fixtures/v1 (see Fixtures/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
swift run ShoalFixtureGenerator
