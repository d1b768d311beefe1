#!/usr/bin/env bash
# Rewrites the REQUEST_TOPICS list of docker-compose.yml's kafka-init from libs/contracts.
set -euo pipefail
cd "$(dirname "$0")/.."
topics=$(node tools/run.js tools/print-request-topics.ts)
python3 - "$topics" <<'PY'
import re, sys
lines = sys.argv[1].strip().splitlines()
path = 'docker-compose.yml'
text = open(path).read()
block = '      REQUEST_TOPICS: >-\n' + ''.join(f'        {line}\n' for line in lines)
text, n = re.subn(r'      REQUEST_TOPICS: >-\n(?:        .*\n)+', block, text)
if n != 1: sys.exit('REQUEST_TOPICS block not found in docker-compose.yml')
open(path, 'w').write(text)
PY
echo "docker-compose.yml: REQUEST_TOPICS synced with libs/contracts"
