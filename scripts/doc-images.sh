#!/usr/bin/env bash
# Remakes docs/images/report-page.png: the report page of the bundled fixture
# (`headscan measure fixtures/scans/orbit-small --html`) as headless Chromium shows it in a
# 900 × 1900 window, taken by the test that checks the page (ReportPageCommandTests).
# Usage: scripts/doc-images.sh   (after a release build with --build-tests, as in README)
set -euo pipefail
cd "$(dirname "$0")/.."
HEADSCAN_DOC_IMAGES="$PWD/docs/images" swift test -c release -Xswiftc -enable-testing --skip-build \
  --filter 'ReportPageCommandTests/measureWritesTheReportPageOfTheScan'
ls -l docs/images/report-page.png
