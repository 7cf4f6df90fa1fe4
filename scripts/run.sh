#!/usr/bin/env bash
# `make run`: the Electron app where its binary is installed (and a display is there), otherwise
# web mode (`cairn serve`), saying which and where.
set -euo pipefail
cd "$(dirname "$0")/.."
# Look for the binary without requiring the electron package (which would try to download it).
electron_bin=""
if [[ -f node_modules/electron/path.txt ]]; then
  candidate="node_modules/electron/dist/$(cat node_modules/electron/path.txt)"
  [[ -x "$candidate" ]] && electron_bin="$candidate"
fi
if [[ -n "$electron_bin" && ( -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" || "$(uname)" == Darwin ) ]]; then
  echo "Starting the Cairn desktop app (Electron)."
  exec "$electron_bin" .
fi
if [[ -z "$electron_bin" ]]; then
  echo "No Electron binary is installed here: starting Cairn in web mode."
else
  echo "No display here: starting Cairn in web mode."
fi
exec bin/cairn serve "$@"
