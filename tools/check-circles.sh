#!/usr/bin/env bash
# npm run check:circles: no import circle anywhere in the workspace. madge follows every
# import, type-only ones included, through the tsconfig paths (@pay/...), and exits 1 on any circle.
set -euo pipefail
cd "$(dirname "$0")/.."
exec npx --no-install madge --circular --extensions ts --ts-config tsconfig.json apps libs tools examples
