#!/usr/bin/env bash
# Installs what headscan needs on Debian 12 and builds the release binary.
# Idempotent: apt runs only when a package is missing; the build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

# OpenCV 4.6 (+ contrib ArUco), Eigen 3.4, PCL 1.13, libpng and libjpeg from Debian;
# chromium and a font for the headless-browser tests of the HTML pages and the cap's SVG sheet;
# poppler-utils (pdftoppm) for the test that renders the cap's PDF sheet.
# --no-install-recommends keeps PCL from pulling a JDK and systemd (~1.9 GB more).
packages=(pkg-config libopencv-dev libopencv-contrib-dev libeigen3-dev libpcl-dev libpng-dev libjpeg62-turbo-dev chromium fonts-dejavu-core poppler-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Swift toolchain (Swift 6.x); on the project's machines it lives in /opt/swift.
if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
  else
    echo "setup: Swift 6 is not installed; see https://www.swift.org/install/linux/ (Debian 12)" >&2
    exit 1
  fi
fi

swift build -c release --product headscan --static-swift-stdlib 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]|use of .mktemp. is dangerous' >&2
echo "setup: built .build/release/headscan" >&2
