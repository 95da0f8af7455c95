#!/usr/bin/env bash
# Regenerates every fixture of the current format version, Fixtures/v5 (see Fixtures/README.md).
# Fixtures of earlier versions (Fixtures/v1 to Fixtures/v4) are never regenerated.
set -euo pipefail
cd "$(dirname "$0")/.."
swift run ShoalFixtureGenerator
