/**
 * `node tools/run.js tools/k8s-check.ts [dir]` (tools/compose-check.sh runs it): the Kubernetes
 * manifests of deploy/k8s (or `dir`) are valid and follow our rules, without a cluster.
 *
 * 1. Every YAML document of every *.yaml file is validated against the Kubernetes JSON schemas of
 *    kubernetes-models, the model class picked by apiVersion and kind (an unknown kind is an error).
 *    kustomization.yaml lists every manifest but the *.example.yaml templates.
 * 2. Every app of the platform (the services docker-compose.yml builds with APP, which must own every
 *    request topic of libs/contracts) has a Deployment running it (env APP, the image's own command)
 *    with: readiness GET /ready and liveness GET /health on the container port, which is PORT; a
 *    startup probe of at least a minute; requests and limits; terminationGracePeriodSeconds at least
 *    its preStop sleep plus the drain on SIGTERM (DRAIN_MS, from the bounds in the code); 2 replicas or
 *    more, never more than KAFKA_REPLY_PARTITIONS with the rolling update's surge; non-root and a
 *    read-only root filesystem (with /tmp writable); a PodDisruptionBudget selecting it that lets one
 *    pod go; a Service selecting it with Prometheus' scrape annotations on the container port.
 * 3. Every variable docker-compose.yml gives the apps is provided (env, or the keys of a ConfigMap or
 *    Secret of these manifests); every reference resolves. No credential in a ConfigMap or inline env
 *    value (names like *KEY*, *SECRET*, *PASSWORD*, *TOKEN*, *DATABASE_URL, EVENTSTORE_URL, or a URL
 *    with a password); a Secret committed here holds only REPLACE_ME placeholders.
 * 4. A Job creating the Kafka topics takes them from the apps' image (tools/print-request-topics.ts)
 *    or lists exactly the contracts' REQUEST_TOPICS; without one, a note says topics are created elsewhere.
 *
 * Exits 1 listing every problem.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { KAFKA_REQUEST_TOPICS, REQUEST_TOPIC_OWNER } from '@pay/contracts';
import { BUS_REQUEST_TIMEOUT_MS, DNS_LOOKUP_TIMEOUT_MS, KAFKA_CLOSE_TIMEOUT_MS, KAFKA_REPLY_PARTITIONS, READY_CHECK_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, WEBHOOK_DELIVERY_TIMEOUT_MS } from '@pay/kernel';

/**
 * The longest an app takes to stop after SIGTERM (runMain → startNestHost's stop), stage by stage:
 * Fastify stops accepting and waits for the requests in flight, each waiting on a bus reply at most
 * BUS_REQUEST_TIMEOUT_MS; the shutdown hooks wait for the webhook dispatcher's attempts in flight (an
 * attempt: its DNS lookup and its delivery timeout) and for the subscriptions' batch in hand (a
 * statement: STATEMENT_TIMEOUT_MS); then the Kafka bus closes within its own bound; the pools end.
 */
export function drainMs(): number {
  return BUS_REQUEST_TIMEOUT_MS + Math.max(DNS_LOOKUP_TIMEOUT_MS + WEBHOOK_DELIVERY_TIMEOUT_MS, STATEMENT_TIMEOUT_MS) + KAFKA_CLOSE_TIMEOUT_MS;
}

/** Apps start in 17 to 30 s (migrations, consumer groups, recovery): the startup probe allows twice that at least. */
const STARTUP_BUDGET_MIN_SECONDS = 60;
/** The app that reads ADMIN_API_KEY (and would otherwise write a generated one under DATA_DIR). */
const ADMIN_KEY_APP = 'gateway';
const PLACEHOLDER = /^REPLACE_ME\b/;
const CREDENTIAL_NAME = /KEY|SECRET|PASSWORD|PASSWD|TOKEN|CREDENTIAL|DATABASE_URL$|^EVENTSTORE_URL$/i;
const PASSWORD_IN_URL = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:[^/@\s]+@/i;

type Json = Record<string, unknown>;
interface Manifest {
  file: string;
  doc: Json;
  kind: string;
  name: string;
  namespace: string | undefined;
}

const isMap = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const map = (value: unknown): Json => (isMap(value) ? value : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);

/** ESM-only kubernetes-models, loaded with a real import() (the TypeScript loader would turn `import()` into require). */
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>;
interface ModelClass {
  new (data: Json): { validate(): void };
  kind?: string;
}
async function modelClass(apiVersion: string, kind: string): Promise<ModelClass | undefined> {
  if (!/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  try {
    const model = (await importEsm(`kubernetes-models/${apiVersion}`))[kind] as ModelClass | undefined;
    return typeof model === 'function' && model.kind === kind ? model : undefined;
  } catch {
    return undefined;
  }
}

/** A Kubernetes quantity in base units (cores, bytes). */
function quantity(value: unknown): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(str(value) ?? '');
  if (!match) return undefined;
  const factor: Record<string, number> = { m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
  return Number(match[1]) * (match[2] ? factor[match[2]]! : 1);
}

const selects = (selector: Json, labels: Json): boolean => Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

export interface CheckResult {
  problems: string[];
  notes: string[];
  objects: number;
  apps: string[];
}

export async function checkKubernetesManifests(dir: string, composeFile = 'docker-compose.yml'): Promise<CheckResult> {
  const problems: string[] = [];
  const notes: string[] = [];
  const manifests: Manifest[] = [];
  const at = (m: Manifest) => `${m.file}: ${m.kind}/${m.name}`;

  // ---- 1. parse and validate every document against the Kubernetes schemas ----
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  let kustomization: Json | undefined;
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    if (file === 'kustomization.yaml' || file === 'kustomization.yml') {
      kustomization = map(parse(text));
      continue;
    }
    for (const [index, document] of parseAllDocuments(text).entries()) {
      if (document.errors.length > 0) {
        problems.push(`${file}: document ${index + 1} does not parse: ${document.errors.map((e) => e.message).join('; ')}`);
        continue;
      }
      const doc = document.toJS() as unknown;
      if (doc === null || doc === undefined) continue;
      if (!isMap(doc)) {
        problems.push(`${file}: document ${index + 1} is not a mapping`);
        continue;
      }
      const apiVersion = str(doc['apiVersion']) ?? '';
      const kind = str(doc['kind']) ?? '';
      const metadata = map(doc['metadata']);
      const manifest: Manifest = { file, doc, kind, name: str(metadata['name']) ?? `(document ${index + 1})`, namespace: str(metadata['namespace']) };
      const Model = await modelClass(apiVersion, kind);
      if (!Model) {
        problems.push(`${at(manifest)}: unknown apiVersion/kind ${apiVersion || '(none)'}/${kind || '(none)'} (not a Kubernetes API object kubernetes-models knows)`);
        continue;
      }
      try {
        new Model(doc).validate();
      } catch (error) {
        problems.push(`${at(manifest)}: invalid against the ${apiVersion} ${kind} schema: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!str(metadata['name'])) problems.push(`${at(manifest)}: metadata.name is missing`);
      manifests.push(manifest);
    }
  }
  const seen = new Set<string>();
  for (const m of manifests) {
    const key = `${m.kind}/${m.namespace ?? ''}/${m.name}`;
    if (seen.has(key)) problems.push(`${at(m)}: defined twice`);
    seen.add(key);
  }
  const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);

  // ---- namespace and kustomization ----
  const namespaces = ofKind('Namespace');
  if (namespaces.length !== 1) problems.push(`expected exactly one Namespace, found ${namespaces.length}`);
  const namespace = namespaces[0]?.name;
  for (const m of manifests) {
    if (m.kind !== 'Namespace' && m.namespace !== namespace) problems.push(`${at(m)}: metadata.namespace is ${m.namespace ?? 'unset'}, not ${namespace}`);
  }
  if (!kustomization) {
    problems.push(`${dir}/kustomization.yaml is missing`);
  } else {
    const listed = list(kustomization['resources']).map(String);
    const expected = files.filter((f) => !/^kustomization\.ya?ml$/.test(f) && !/\.example\.ya?ml$/.test(f));
    for (const f of expected) if (!listed.includes(f)) problems.push(`kustomization.yaml does not list ${f}`);
    for (const f of listed) if (!files.includes(f) || /\.example\.ya?ml$/.test(f)) problems.push(`kustomization.yaml lists ${f}, which is ${files.includes(f) ? 'a template' : 'not a manifest here'}`);
    if (kustomization['namespace'] !== undefined && kustomization['namespace'] !== namespace) problems.push(`kustomization.yaml sets namespace ${str(kustomization['namespace'])}, not ${namespace}`);
  }

  // ---- ConfigMaps and Secrets: where each key lives; no credential in a ConfigMap, no real secret committed ----
  const keysOf = new Map<string, Set<string>>();
  const configValues = new Map<string, Json>();
  for (const m of ofKind('ConfigMap')) {
    const data = map(m.doc['data']);
    keysOf.set(`ConfigMap/${m.name}`, new Set(Object.keys(data)));
    configValues.set(m.name, data);
    for (const [key, value] of Object.entries(data)) {
      if (CREDENTIAL_NAME.test(key)) problems.push(`${at(m)}: ${key} is a credential: it belongs in a Secret, not a ConfigMap`);
      else if (PASSWORD_IN_URL.test(str(value) ?? '')) problems.push(`${at(m)}: ${key} holds a URL with a password: it belongs in a Secret`);
    }
  }
  for (const m of ofKind('Secret')) {
    const stringData = map(m.doc['stringData']);
    const data = Object.fromEntries(Object.entries(map(m.doc['data'])).map(([k, v]) => [k, Buffer.from(str(v) ?? '', 'base64').toString('utf8')]));
    keysOf.set(`Secret/${m.name}`, new Set([...Object.keys(stringData), ...Object.keys(data)]));
    for (const [key, value] of Object.entries({ ...data, ...stringData })) {
      if (!PLACEHOLDER.test(str(value) ?? '')) problems.push(`${at(m)}: ${key} is not a REPLACE_ME placeholder: no real secret may be committed (fill a copy outside the repository)`);
    }
  }

  // ---- 2. the apps, and what docker-compose.yml gives them ----
  const compose = map(parse(readFileSync(composeFile, 'utf8'), { merge: true }));
  const services = Object.entries(map(compose['services'])).filter(([, s]) => str(map(map(map(s)['build'])['args'])['APP']));
  const apps = services.map(([, s]) => str(map(map(map(s)['build'])['args'])['APP'])!).sort();
  for (const owner of new Set(Object.values(REQUEST_TOPIC_OWNER))) {
    if (!apps.includes(owner)) problems.push(`${owner} owns request topics in libs/contracts but ${composeFile} builds no such app`);
  }
  const composeEnv = new Map(services.map(([, s]) => [str(map(map(map(s)['build'])['args'])['APP'])!, Object.keys(map(map(s)['environment']))]));
  const drain = drainMs() / 1000;
  const images = new Set<string>();

  const deployments = ofKind('Deployment');
  for (const app of apps) {
    const running = deployments.filter((d) => list(map(map(map(map(d.doc['spec'])['template'])['spec']))['containers']).some((c) => list(map(c)['env']).some((e) => map(e)['name'] === 'APP' && map(e)['value'] === app)));
    if (running.length !== 1) {
      problems.push(`app ${app}: ${running.length === 0 ? 'no Deployment runs it (a container with env APP=' + app + ')' : `${running.length} Deployments run it`}`);
      continue;
    }
    const d = running[0]!;
    const where = `${at(d)} (app ${app})`;
    const spec = map(d.doc['spec']);
    const template = map(spec['template']);
    const labels = map(map(template['metadata'])['labels']);
    const pod = map(template['spec']);
    const container = map(list(pod['containers']).find((c) => list(map(c)['env']).some((e) => map(e)['name'] === 'APP' && map(e)['value'] === app)));

    if (!selects(map(map(spec['selector'])['matchLabels']), labels)) problems.push(`${where}: spec.selector.matchLabels does not select its own pod template`);
    images.add(str(container['image']) ?? '(none)');
    if (container['command'] !== undefined || container['args'] !== undefined) problems.push(`${where}: command/args set: the image's CMD runs apps/$APP/src/main.ts, as in ${composeFile}`);

    // replicas and the Kafka reply partitions
    const replicas = spec['replicas'] === undefined ? 1 : typeof spec['replicas'] === 'number' ? spec['replicas'] : Number.NaN; // NaN (the schema error says it) fails no comparison below
    const rolling = map(map(spec['strategy'])['rollingUpdate']);
    const surgeRaw = rolling['maxSurge'] ?? '25%';
    const surge = typeof surgeRaw === 'number' ? surgeRaw : Math.ceil((replicas * Number(String(surgeRaw).replace('%', ''))) / 100);
    if (replicas < 2) problems.push(`${where}: ${replicas} replica(s): at least 2 (stateless; one may be drained under the PodDisruptionBudget)`);
    if (replicas + surge > KAFKA_REPLY_PARTITIONS) problems.push(`${where}: ${replicas} replicas + ${surge} surge exceed KAFKA_REPLY_PARTITIONS (${KAFKA_REPLY_PARTITIONS}): each caller instance owns one reply partition`);

    // ports and probes
    const env = list(container['env']).map(map);
    const envFrom = list(container['envFrom']).map(map);
    const ports = list(container['ports']).map(map);
    const portOf = (ref: unknown): number | undefined => (typeof ref === 'number' ? ref : (ports.find((p) => p['name'] === ref)?.['containerPort'] as number | undefined));
    const portEnv = env.find((e) => e['name'] === 'PORT')?.['value'] ?? envFrom.map((f) => str(map(f['configMapRef'])['name'])).map((n) => n && configValues.get(n)?.['PORT']).find((v) => v !== undefined);
    const appPort = Number(str(portEnv) ?? '3000');
    if (!ports.some((p) => p['containerPort'] === appPort)) problems.push(`${where}: no containerPort ${appPort} (PORT)`);
    const probe = (name: string, path: string) => {
      const p = map(container[name]);
      const get = map(p['httpGet']);
      if (Object.keys(p).length === 0) problems.push(`${where}: no ${name}`);
      else if (get['path'] !== path || portOf(get['port']) !== appPort) problems.push(`${where}: ${name} must be GET ${path} on port ${appPort} (is ${Object.keys(get).length ? `GET ${str(get['path'])} on ${str(get['port'])}` : 'not an httpGet'})`);
      return p;
    };
    const readiness = probe('readinessProbe', '/ready');
    probe('livenessProbe', '/health');
    const startup = probe('startupProbe', '/health');
    const readyTimeout = typeof readiness['timeoutSeconds'] === 'number' ? readiness['timeoutSeconds'] : 1;
    if (Object.keys(readiness).length > 0 && readyTimeout * 1000 <= READY_CHECK_TIMEOUT_MS) problems.push(`${where}: readinessProbe.timeoutSeconds ${readyTimeout} must exceed READY_CHECK_TIMEOUT_MS (${READY_CHECK_TIMEOUT_MS} ms), the bound of each readiness check`);
    const num = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);
    const startupBudget = num(startup['initialDelaySeconds'], 0) + num(startup['periodSeconds'], 10) * num(startup['failureThreshold'], 3);
    if (Object.keys(startup).length > 0 && startupBudget < STARTUP_BUDGET_MIN_SECONDS) problems.push(`${where}: startupProbe allows ${startupBudget} s; apps take up to 30 s to start: at least ${STARTUP_BUDGET_MIN_SECONDS} s`);

    // resources
    const resources = map(container['resources']);
    for (const resource of ['cpu', 'memory']) {
      const request = quantity(map(resources['requests'])[resource]);
      const limit = quantity(map(resources['limits'])[resource]);
      if (request === undefined) problems.push(`${where}: no resources.requests.${resource}`);
      if (limit === undefined) problems.push(`${where}: no resources.limits.${resource}`);
      if (request !== undefined && limit !== undefined && limit < request) problems.push(`${where}: resources.limits.${resource} is below its request`);
    }

    // graceful termination
    const preStop = map(map(container['lifecycle'])['preStop']);
    const sleepMatch = /\bsleep\s+(\d+)/.exec(list(map(preStop['exec'])['command']).map(String).join(' '));
    const preStopSeconds = sleepMatch ? Number(sleepMatch[1]) : typeof map(preStop['sleep'])['seconds'] === 'number' ? (map(preStop['sleep'])['seconds'] as number) : undefined;
    if (preStopSeconds === undefined) problems.push(`${where}: no preStop sleep: SIGTERM would arrive while the pod is still in the Service's endpoints`);
    const grace = num(pod['terminationGracePeriodSeconds'], 30);
    if (grace < (preStopSeconds ?? 0) + drain) problems.push(`${where}: terminationGracePeriodSeconds ${grace} < preStop ${preStopSeconds ?? 0} s + the drain on SIGTERM ${drain} s`);

    // security
    const podSecurity = map(pod['securityContext']);
    const security = map(container['securityContext']);
    const runAsNonRoot = security['runAsNonRoot'] ?? podSecurity['runAsNonRoot'];
    const runAsUser = security['runAsUser'] ?? podSecurity['runAsUser'];
    if (runAsNonRoot !== true || typeof runAsUser !== 'number' || runAsUser === 0) problems.push(`${where}: must run as non-root: runAsNonRoot true and a numeric runAsUser (the image's USER is a name)`);
    if (security['readOnlyRootFilesystem'] !== true) problems.push(`${where}: readOnlyRootFilesystem must be true`);
    else if (!list(container['volumeMounts']).some((v) => map(v)['mountPath'] === '/tmp')) problems.push(`${where}: a read-only root filesystem needs a writable /tmp (@swc-node/register's cache)`);
    if (security['allowPrivilegeEscalation'] !== false) problems.push(`${where}: allowPrivilegeEscalation must be false`);

    // environment: every variable compose gives the app, every reference resolving
    const provided = new Set<string>();
    for (const e of env) {
      const name = str(e['name']) ?? '';
      provided.add(name);
      const from = map(e['valueFrom']);
      for (const [refKind, kind] of [['configMapKeyRef', 'ConfigMap'], ['secretKeyRef', 'Secret']] as const) {
        const ref = map(from[refKind]);
        if (Object.keys(ref).length > 0 && ref['optional'] !== true && !keysOf.get(`${kind}/${str(ref['name'])}`)?.has(str(ref['key']) ?? '')) {
          problems.push(`${where}: env ${name} refers to ${kind} ${str(ref['name'])} key ${str(ref['key'])}, which these manifests do not define`);
        }
      }
      if (e['value'] !== undefined && (CREDENTIAL_NAME.test(name) || PASSWORD_IN_URL.test(str(e['value']) ?? ''))) problems.push(`${where}: env ${name} has an inline value: a credential comes from a Secret (secretKeyRef)`);
    }
    for (const f of envFrom) {
      for (const [refKind, kind] of [['configMapRef', 'ConfigMap'], ['secretRef', 'Secret']] as const) {
        const ref = map(f[refKind]);
        if (Object.keys(ref).length === 0) continue;
        const keys = keysOf.get(`${kind}/${str(ref['name'])}`);
        if (!keys && ref['optional'] !== true) problems.push(`${where}: envFrom ${kind} ${str(ref['name'])}, which these manifests do not define`);
        for (const key of keys ?? []) provided.add(`${str(f['prefix']) ?? ''}${key}`);
      }
    }
    for (const name of composeEnv.get(app) ?? []) if (!provided.has(name)) problems.push(`${where}: ${name} is not provided (${composeFile} gives it to ${app})`);
    if (app === ADMIN_KEY_APP && !env.some((e) => e['name'] === 'ADMIN_API_KEY' && Object.keys(map(map(e['valueFrom'])['secretKeyRef'])).length > 0 && map(map(e['valueFrom'])['secretKeyRef'])['optional'] !== true)) {
      problems.push(`${where}: ADMIN_API_KEY must come from a Secret (required): the gateway cannot generate one on a read-only filesystem, and each replica would make its own`);
    }

    // PodDisruptionBudget
    const pdbs = ofKind('PodDisruptionBudget').filter((p) => selects(map(map(map(p.doc['spec'])['selector'])['matchLabels']), labels));
    if (pdbs.length === 0) problems.push(`${where}: no PodDisruptionBudget selects its pods`);
    for (const p of pdbs) {
      const pdbSpec = map(p.doc['spec']);
      const minAvailable = pdbSpec['minAvailable'];
      if (typeof minAvailable === 'number' ? minAvailable < 1 || minAvailable >= replicas : typeof pdbSpec['maxUnavailable'] !== 'number' || (pdbSpec['maxUnavailable'] as number) < 1) {
        problems.push(`${at(p)}: must keep at least one ${app} pod and let one go (minAvailable from 1 to replicas - 1, here ${replicas - 1})`);
      }
    }

    // Service with Prometheus' scrape annotations
    const servicesFor = ofKind('Service').filter((s) => selects(map(map(s.doc['spec'])['selector']), labels));
    const scraped = servicesFor.filter((s) => {
      const annotations = map(map(s.doc['metadata'])['annotations']);
      const toPort = list(map(s.doc['spec'])['ports']).some((p) => portOf(map(p)['targetPort'] ?? map(p)['port']) === appPort);
      return toPort && annotations['prometheus.io/scrape'] === 'true' && Number(annotations['prometheus.io/port']) === appPort && (annotations['prometheus.io/path'] ?? '/metrics') === '/metrics';
    });
    if (scraped.length === 0) problems.push(`${where}: no Service selects its pods on port ${appPort} with prometheus.io/scrape "true", prometheus.io/port "${appPort}" and path /metrics`);
  }
  for (const d of deployments) {
    const runsApp = list(map(map(map(map(d.doc['spec'])['template'])['spec']))['containers']).some((c) => list(map(c)['env']).some((e) => map(e)['name'] === 'APP' && apps.includes(str(map(e)['value']) ?? '')));
    if (!runsApp) problems.push(`${at(d)}: runs none of the apps (${apps.join(', ')})`);
  }
  if (images.size > 1) problems.push(`the apps run different images (${[...images].join(', ')}): one image, built from the Dockerfile, serves every app`);

  // ---- 4. the Kafka topics ----
  const topicJobs = ofKind('Job').filter((j) => JSON.stringify(j.doc).includes('kafka-topics.sh'));
  if (topicJobs.length === 0) notes.push('no Job creates the Kafka topics: they must be created by the platform team (docs/kubernetes.md)');
  for (const j of topicJobs) {
    const podSpec = map(map(map(j.doc['spec'])['template'])['spec']);
    const containers = [...list(podSpec['initContainers']), ...list(podSpec['containers'])].map(map);
    const fromImage = containers.find((c) => JSON.stringify([c['command'], c['args']]).includes('tools/print-request-topics.ts'));
    const listed = containers.flatMap((c) => list(c['env']).map(map)).find((e) => e['name'] === 'REQUEST_TOPICS');
    if (fromImage) {
      if (!images.has(str(fromImage['image']) ?? '')) problems.push(`${at(j)}: prints the topics with ${str(fromImage['image'])}, not the apps' image`);
    } else if (listed) {
      const declared = (str(listed['value']) ?? '').split(/\s+/).filter(Boolean).sort();
      if (declared.join() !== [...KAFKA_REQUEST_TOPICS].sort().join()) problems.push(`${at(j)}: REQUEST_TOPICS differ from libs/contracts KAFKA_REQUEST_TOPICS`);
    } else {
      problems.push(`${at(j)}: creates topics neither from tools/print-request-topics.ts nor from a REQUEST_TOPICS list`);
    }
  }

  return { problems, notes, objects: manifests.length, apps };
}

// Run as a command (tools/run.js sets argv[1] to the entry point), not when imported.
if (process.argv[1] && resolve(process.argv[1]) === __filename) {
  const dir = process.argv[2] ?? 'deploy/k8s';
  if (!existsSync(dir)) {
    console.error(`k8s-check: ${dir} not found`);
    process.exit(2);
  }
  checkKubernetesManifests(dir).then(
    ({ problems, notes, objects, apps }) => {
      for (const note of notes) console.log(`k8s-check: note: ${note}`);
      for (const problem of problems) console.error(`k8s-check: ${problem}`);
      console.log(`k8s-check: ${dir}: ${objects} objects, ${apps.length} apps (${apps.join(', ')}), drain on SIGTERM ${drainMs() / 1000} s, ${problems.length} problem(s)`);
      process.exit(problems.length > 0 ? 1 : 0);
    },
    (error: unknown) => {
      console.error(`k8s-check: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(2);
    },
  );
}
