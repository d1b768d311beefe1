#!/usr/bin/env bash
# Builds every app to dist/ (tsc, with the decorator metadata Nest needs) and copies the SQL migrations
# and the hosted pages' views beside the compiled libraries. Run an app from the build with:
#   node -r ./tools/dist-register.js dist/apps/<app>/src/main.js
# Arguments go to tsc: CI passes --noCheck (emit only), its `npm test` type-checks the same sources.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf dist
npx tsc -p tsconfig.build.json "$@"
for dir in $(find libs -type d -name migrations -not -path '*/node_modules/*'); do
  mkdir -p "dist/$dir"
  cp "$dir"/*.sql "dist/$dir/"
done
# The hosted pages' templates, stylesheet and script, read at start beside the compiled libraries.
for dir in $(find libs -type d -name views -not -path '*/node_modules/*'); do
  mkdir -p "dist/$dir"
  cp -R "$dir"/. "dist/$dir/"
done
echo "built dist/ ($(find dist -name '*.js' | wc -l) files)"
