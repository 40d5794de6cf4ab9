#!/usr/bin/env sh
# Build dist/seqdesk/ (one folder, PyInstaller via nicegui-pack). See packaging/build.py.
set -eu
cd "$(dirname "$0")/.."
exec "${PYTHON:-python3}" packaging/build.py "$@"
