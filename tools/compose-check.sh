#!/usr/bin/env bash
# Validates docker-compose.yml without a Docker engine: `bash tools/compose-check.sh [file]`.
#
# 1. `docker compose config -q` when the compose plugin is installed (it parses, interpolates and
#    checks the file against the compose schema locally; no engine needed).
# 2. Always, with python3 + PyYAML, else node + the `yaml` package from node_modules: the YAML parses;
#    every service has an image or a build; every depends_on target exists, with a known condition,
#    and a service_healthy target has a health check; named volumes are declared; environment values
#    are scalars; every `$` is a valid interpolation (or escaped as `$$`).
# 3. kafka-init's REQUEST_TOPICS and REPLY_TOPICS equal KAFKA_REQUEST_TOPICS and REPLY_TOPICS of libs/contracts/src/topics.ts (needs node
#    and node_modules; skipped, and said so, otherwise).
# 4. deploy/ (tools/deploy-check.ts): Prometheus scrapes every app's /metrics, and the Grafana dashboard
#    queries only, and shows all, the metric families the code exports.
#
# Exits non-zero on a broken file, and prints what it used.
set -euo pipefail
cd "$(dirname "$0")/.."
file="${1:-docker-compose.yml}"
[ -f "$file" ] || { echo "compose-check: $file not found" >&2; exit 2; }
status=0

# ---- 1. the compose plugin ----
if docker compose version >/dev/null 2>&1; then
  echo "compose-check: docker compose config -q ($(docker compose version --short 2>/dev/null || echo '?'))"
  if ! docker compose -f "$file" config -q; then status=1; fi
else
  echo "compose-check: the docker compose plugin is not installed here; using the structural checks only"
fi

# ---- the request and reply topics the contracts define (empty when node cannot load them) ----
contract_topics=""
contract_replies=""
if command -v node >/dev/null 2>&1 && [ -d node_modules/@swc-node/register ]; then
  # One node start-up for both lists: the request topics on the first line, the reply topics on the second.
  topic_lines="$(node -e "require('./tools/register'); const t = require('./libs/contracts/src/topics.ts'); process.stdout.write(t.KAFKA_REQUEST_TOPICS.join(' ') + '\n' + t.REPLY_TOPICS.join(' '))" 2>/dev/null || true)"
  contract_topics="$(printf '%s\n' "$topic_lines" | sed -n 1p)"
  contract_replies="$(printf '%s\n' "$topic_lines" | sed -n 2p)"
fi
export COMPOSE_CHECK_FILE="$file" COMPOSE_CHECK_TOPICS="$contract_topics" COMPOSE_CHECK_REPLIES="$contract_replies"

# ---- 2 and 3. structural checks ----
if command -v python3 >/dev/null 2>&1 && python3 -c 'import yaml' 2>/dev/null; then
  echo "compose-check: structural checks with python3 $(python3 -c 'import sys; print(sys.version.split()[0])') + PyYAML $(python3 -c 'import yaml; print(yaml.__version__)')"
  python3 - <<'PY' || status=1
import os, re, sys, yaml

path = os.environ["COMPOSE_CHECK_FILE"]
errors, notes = [], []
try:
    with open(path) as f:
        doc = yaml.safe_load(f)  # PyYAML resolves `<<` merge keys, as compose does
except yaml.YAMLError as e:
    print(f"compose-check: {path}: YAML does not parse:\n{e}", file=sys.stderr)
    sys.exit(1)

CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}
INTERPOLATION = re.compile(r"\$(\{[A-Za-z_][A-Za-z0-9_]*((:?[-?+])[^}]*)?\}|[A-Za-z_][A-Za-z0-9_]*)")

def strings(value, where):
    if isinstance(value, str):
        yield value, where
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from strings(v, f"{where}[{i}]")

if not isinstance(doc, dict):
    errors.append("the file is not a mapping")
    doc = {}
for key in doc:
    if key not in {"services", "volumes", "networks", "configs", "secrets", "name", "version", "include"} and not str(key).startswith("x-"):
        errors.append(f"unknown top-level key {key!r}")
services = doc.get("services")
if not isinstance(services, dict) or not services:
    errors.append("no services")
    services = {}
volumes = doc.get("volumes") or {}

for text, where in strings(doc, "$"):
    unescaped = text.replace("$$", "")
    for i, ch in enumerate(unescaped):
        if ch == "$" and not INTERPOLATION.match(unescaped, i):
            errors.append(f"{where}: invalid interpolation (write $$ for a literal $): {text[:60]!r}")
            break

for name, service in services.items():
    if not isinstance(service, dict):
        errors.append(f"service {name}: not a mapping")
        continue
    if "image" not in service and "build" not in service:
        errors.append(f"service {name}: neither image nor build")
    build = service.get("build")
    if isinstance(build, dict):
        if "context" not in build:
            errors.append(f"service {name}: build without context")
        app = (build.get("args") or {}).get("APP")
        if app and not os.path.isfile(f"apps/{app}/src/main.ts"):
            notes.append(f"service {name}: apps/{app}/src/main.ts does not exist (yet): its image build would fail")
    deps = service.get("depends_on") or {}
    if isinstance(deps, list):
        deps = {d: {"condition": "service_started"} for d in deps}
    if not isinstance(deps, dict):
        errors.append(f"service {name}: depends_on is neither a list nor a mapping")
        deps = {}
    for target, spec in deps.items():
        if target not in services:
            errors.append(f"service {name}: depends_on {target!r}, which is not a service")
            continue
        if target == name:
            errors.append(f"service {name}: depends on itself")
        condition = (spec or {}).get("condition", "service_started")
        if condition not in CONDITIONS:
            errors.append(f"service {name}: depends_on {target}: unknown condition {condition!r}")
        other = services[target] if isinstance(services[target], dict) else {}
        check = other.get("healthcheck") or {}
        if condition == "service_healthy" and (check.get("disable") or (not check.get("test") and "build" not in other)):
            errors.append(f"service {name}: waits for {target} to be healthy, but {target} has no health check")
    env = service.get("environment") or {}
    items = env.items() if isinstance(env, dict) else ((e.split("=", 1)[0], e) for e in env)
    for key, value in items:
        if isinstance(value, bool) or isinstance(value, (dict, list)):
            errors.append(f"service {name}: environment {key} must be a string or a number (quote true/false/yes/no)")
    for spec in service.get("volumes") or []:
        source = spec.split(":", 1)[0] if isinstance(spec, str) else (spec or {}).get("source", "")
        if source and ":" in (spec if isinstance(spec, str) else ":") and not source.startswith((".", "/", "~", "$")) and source not in volumes:
            errors.append(f"service {name}: volume {source!r} is not declared under volumes")
    test = (service.get("healthcheck") or {}).get("test")
    if isinstance(test, list) and (not test or test[0] not in {"NONE", "CMD", "CMD-SHELL"}):
        errors.append(f"service {name}: healthcheck test must start with NONE, CMD or CMD-SHELL")

topics = os.environ.get("COMPOSE_CHECK_TOPICS", "").split()
init_env = (services.get("kafka-init") or {}).get("environment") or {}
declared = str(init_env.get("REQUEST_TOPICS", "")).split() if isinstance(init_env, dict) else []
if not topics:
    notes.append("request topics not compared with libs/contracts (node or node_modules unavailable)")
elif not declared:
    errors.append("kafka-init has no REQUEST_TOPICS")
elif sorted(declared) != sorted(topics):
    missing, extra = sorted(set(topics) - set(declared)), sorted(set(declared) - set(topics))
    errors.append(f"kafka-init REQUEST_TOPICS differ from libs/contracts KAFKA_REQUEST_TOPICS: missing {missing}, not a contract topic {extra}")
else:
    notes.append(f"kafka-init creates the {len(topics)} request topics, one per serving app")
replies = os.environ.get("COMPOSE_CHECK_REPLIES", "").split()
declared_replies = str(init_env.get("REPLY_TOPICS", "")).split() if isinstance(init_env, dict) else []
if replies and sorted(declared_replies) != sorted(replies):
    errors.append(f"kafka-init REPLY_TOPICS differ from libs/contracts REPLY_TOPICS: expected {sorted(replies)}, got {sorted(declared_replies)}")
elif replies:
    notes.append(f"kafka-init creates the {len(replies)} reply topics, one per app")

for note in notes:
    print(f"compose-check: note: {note}")
for error in errors:
    print(f"compose-check: {path}: {error}", file=sys.stderr)
print(f"compose-check: {len(services)} services, {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
PY
elif command -v node >/dev/null 2>&1 && { [ -d node_modules/yaml ] || [ -d node_modules/js-yaml ]; }; then
  yaml_package="$( [ -d node_modules/yaml ] && echo yaml || echo js-yaml )"
  echo "compose-check: structural checks with node $(node --version) + $yaml_package $(node -p "JSON.parse(require('fs').readFileSync('node_modules/$yaml_package/package.json', 'utf8')).version")"
  node - <<'JS' || status=1
const fs = require('node:fs');
const path = process.env.COMPOSE_CHECK_FILE;
const text = fs.readFileSync(path, 'utf8');
const errors = [];
const notes = [];
let doc;
try {
  doc = fs.existsSync('node_modules/yaml') ? require('yaml').parse(text, { merge: true }) : require('js-yaml').load(text);
} catch (error) {
  console.error(`compose-check: ${path}: YAML does not parse:\n${error.message}`);
  process.exit(1);
}
const CONDITIONS = new Set(['service_started', 'service_healthy', 'service_completed_successfully']);
const INTERPOLATION = /^\$(\{[A-Za-z_][A-Za-z0-9_]*((:?[-?+])[^}]*)?\}|[A-Za-z_][A-Za-z0-9_]*)/;
const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
function* strings(value, where) {
  if (typeof value === 'string') yield [value, where];
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${where}[${i}]`);
  else if (isMap(value)) for (const [k, v] of Object.entries(value)) yield* strings(v, `${where}.${k}`);
}
if (!isMap(doc)) { errors.push('the file is not a mapping'); doc = {}; }
const services = isMap(doc.services) && Object.keys(doc.services).length > 0 ? doc.services : (errors.push('no services'), {});
const volumes = isMap(doc.volumes) ? doc.volumes : {};
for (const [value, where] of strings(doc, '$')) {
  const unescaped = value.replaceAll('$$', '');
  for (let i = unescaped.indexOf('$'); i >= 0; i = unescaped.indexOf('$', i + 1)) {
    if (!INTERPOLATION.test(unescaped.slice(i))) { errors.push(`${where}: invalid interpolation (write $$ for a literal $)`); break; }
  }
}
for (const [name, service] of Object.entries(services)) {
  if (!isMap(service)) { errors.push(`service ${name}: not a mapping`); continue; }
  if (!('image' in service) && !('build' in service)) errors.push(`service ${name}: neither image nor build`);
  const app = isMap(service.build) && isMap(service.build.args) ? service.build.args.APP : undefined;
  if (app && !fs.existsSync(`apps/${app}/src/main.ts`)) notes.push(`service ${name}: apps/${app}/src/main.ts does not exist (yet)`);
  let deps = service.depends_on ?? {};
  if (Array.isArray(deps)) deps = Object.fromEntries(deps.map((d) => [d, { condition: 'service_started' }]));
  for (const [target, spec] of Object.entries(deps)) {
    if (!(target in services)) { errors.push(`service ${name}: depends_on '${target}', which is not a service`); continue; }
    const condition = spec?.condition ?? 'service_started';
    if (!CONDITIONS.has(condition)) errors.push(`service ${name}: depends_on ${target}: unknown condition '${condition}'`);
    const other = services[target] ?? {};
    if (condition === 'service_healthy' && !other.healthcheck?.test && !('build' in other)) errors.push(`service ${name}: waits for ${target} to be healthy, but ${target} has no health check`);
  }
  const env = service.environment ?? {};
  for (const [key, value] of isMap(env) ? Object.entries(env) : []) {
    if (typeof value === 'boolean' || (value !== null && typeof value === 'object')) errors.push(`service ${name}: environment ${key} must be a string or a number`);
  }
  for (const spec of service.volumes ?? []) {
    const source = typeof spec === 'string' && spec.includes(':') ? spec.split(':')[0] : '';
    if (source && !/^[./~$]/.test(source) && !(source in volumes)) errors.push(`service ${name}: volume '${source}' is not declared under volumes`);
  }
}
const topics = (process.env.COMPOSE_CHECK_TOPICS ?? '').split(/\s+/).filter(Boolean);
const declared = String(services['kafka-init']?.environment?.REQUEST_TOPICS ?? '').split(/\s+/).filter(Boolean);
if (topics.length === 0) notes.push('request topics not compared with libs/contracts (node_modules unavailable)');
else if ([...topics].sort().join() !== [...declared].sort().join()) errors.push(`kafka-init REQUEST_TOPICS differ from libs/contracts KAFKA_REQUEST_TOPICS`);
else notes.push(`kafka-init creates the ${topics.length} request topics, one per serving app`);
const replies = (process.env.COMPOSE_CHECK_REPLIES ?? '').split(/\s+/).filter(Boolean);
const declaredReplies = String(services['kafka-init']?.environment?.REPLY_TOPICS ?? '').split(/\s+/).filter(Boolean);
if (replies.length > 0 && [...replies].sort().join() !== [...declaredReplies].sort().join()) errors.push(`kafka-init REPLY_TOPICS differ from libs/contracts REPLY_TOPICS`);
else if (replies.length > 0) notes.push(`kafka-init creates the ${replies.length} reply topics, one per app`);
for (const note of notes) console.log(`compose-check: note: ${note}`);
for (const error of errors) console.error(`compose-check: ${path}: ${error}`);
console.log(`compose-check: ${Object.keys(services).length} services, ${errors.length} problem(s)`);
process.exit(errors.length > 0 ? 1 : 0);
JS
else
  echo "compose-check: neither python3 with PyYAML nor node with a YAML package in node_modules: cannot check $file" >&2
  status=1
fi

# ---- 4. deploy/: Prometheus scrapes every app, the Grafana dashboard shows every metric family ----
if [ "$file" = docker-compose.yml ] && [ -n "$contract_topics" ]; then
  node tools/run.js tools/deploy-check.ts || status=1
else
  echo "compose-check: note: deploy/ not compared with the code (node_modules unavailable, or another file)"
fi

# ---- 5. deploy/k8s (tools/k8s-check.ts): the Kubernetes manifests against the Kubernetes schemas and our rules ----
if [ -n "$contract_topics" ] && [ -d node_modules/kubernetes-models ]; then
  node tools/run.js tools/k8s-check.ts || status=1
else
  echo "compose-check: note: deploy/k8s not checked (node_modules or kubernetes-models unavailable)"
fi

if [ "$status" -eq 0 ]; then echo "compose-check: $file OK"; else echo "compose-check: $file has problems" >&2; fi
exit "$status"
