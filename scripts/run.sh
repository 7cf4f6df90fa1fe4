#!/usr/bin/env bash
# `make run`: the Electron app where its binary is installed, otherwise web mode (`cairn serve`).
set -euo pipefail
cd "$(dirname "$0")/.."
electron_bin=$(node -e "try { const p = require('electron'); if (typeof p === 'string' && require('fs').existsSync(p)) console.log(p) } catch {}" 2>/dev/null || true)
if [[ -n "$electron_bin" && ( -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" || "$(uname)" == Darwin ) ]]; then
  echo "Starting the Cairn desktop app (Electron)."
  exec "$electron_bin" .
fi
echo "No Electron binary or display here: starting Cairn in web mode."
exec bin/cairn serve "$@"
