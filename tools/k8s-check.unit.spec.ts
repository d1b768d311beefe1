import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * tools/k8s-check.ts fails on bad manifests, naming each problem. It runs as the command CI runs
 * (kubernetes-models is ESM-only: loaded by Node's own import(), which jest's module system lacks),
 * on a copy of deploy/k8s with one defect planted per case.
 */
const root = resolve(__dirname, '..');
const dirs: string[] = [];

function check(plant: (dir: string) => void = () => undefined): { status: number | null; stderr: string; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-check-'));
  dirs.push(dir);
  cpSync(join(root, 'deploy/k8s'), dir, { recursive: true });
  plant(dir);
  const run = spawnSync(process.execPath, ['tools/run.js', 'tools/k8s-check.ts', dir], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stderr: run.stderr, stdout: run.stdout };
}

/** Edits one document (by kind and name) of a manifest file, keeping the others and the comments. */
function edit(dir: string, file: string, kind: string, name: string, change: (doc: ReturnType<typeof parseAllDocuments>[number]) => void): void {
  const path = join(dir, file);
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  if (!Array.isArray(docs)) throw new Error(`${file} does not parse`);
  const doc = docs.find((d) => d.get('kind') === kind && d.getIn(['metadata', 'name']) === name);
  if (!doc) throw new Error(`${file} has no ${kind}/${name}`);
  change(doc);
  writeFileSync(path, docs.map((d) => d.toString()).join('---\n'));
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('tools/k8s-check.ts', () => {
  it('passes deploy/k8s as committed', () => {
    const { status, stdout, stderr } = check();
    expect(stderr).toBe('');
    expect(stdout).toMatch(/7 apps .*0 problem\(s\)/);
    expect(status).toBe(0);
  });

  it('reports a Deployment without its readiness probe', () => {
    const { status, stderr } = check((dir) => edit(dir, 'payments.yaml', 'Deployment', 'payments', (d) => d.deleteIn(['spec', 'template', 'spec', 'containers', 0, 'readinessProbe'])));
    expect(status).toBe(1);
    expect(stderr).toContain('payments.yaml: Deployment/payments (app payments): no readinessProbe');
  });

  it('reports a field of the wrong type, from the Kubernetes schema', () => {
    const { status, stderr } = check((dir) => edit(dir, 'ledger.yaml', 'Deployment', 'ledger', (d) => d.setIn(['spec', 'replicas'], 'two')));
    expect(status).toBe(1);
    expect(stderr).toMatch(/ledger\.yaml: Deployment\/ledger: invalid against the apps\/v1 Deployment schema: .*replicas must be integer/);
  });

  it('reports a secret in a ConfigMap, and a credential inline in a Deployment', () => {
    const { status, stderr } = check((dir) => {
      edit(dir, 'configmap.yaml', 'ConfigMap', 'payments-platform', (d) => d.setIn(['data', 'DB_PASSWORD'], 'hunter2'));
      edit(dir, 'configmap.yaml', 'ConfigMap', 'payments-platform', (d) => d.setIn(['data', 'ANALYTICS_URL'], 'https://reporter:s3cret@analytics.example.com'));
      edit(dir, 'cash.yaml', 'Deployment', 'cash', (d) => d.addIn(['spec', 'template', 'spec', 'containers', 0, 'env'], { name: 'DATABASE_URL', value: 'postgres://payments:payments@db:5432/payments' }));
    });
    expect(status).toBe(1);
    expect(stderr).toContain('configmap.yaml: ConfigMap/payments-platform: DB_PASSWORD is a credential: it belongs in a Secret');
    expect(stderr).toContain('configmap.yaml: ConfigMap/payments-platform: ANALYTICS_URL holds a URL with a password');
    expect(stderr).toContain('cash.yaml: Deployment/cash (app cash): env DATABASE_URL has an inline value');
  });

  it('reports a real value in the Secret template, an unknown kind, a short grace period and a variable compose gives but the manifests do not', () => {
    const { status, stderr } = check((dir) => {
      edit(dir, 'secret.example.yaml', 'Secret', 'payments-platform', (d) => d.setIn(['stringData', 'ADMIN_API_KEY'], 'admin_0123456789abcdef'));
      writeFileSync(join(dir, 'widget.yaml'), 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: payments\n');
      edit(dir, 'webhooks.yaml', 'Deployment', 'webhooks', (d) => d.setIn(['spec', 'template', 'spec', 'terminationGracePeriodSeconds'], 30));
      edit(dir, 'configmap.yaml', 'ConfigMap', 'payments-platform', (d) => d.deleteIn(['data', 'KAFKA_BROKERS']));
    });
    expect(status).toBe(1);
    expect(stderr).toContain('secret.example.yaml: Secret/payments-platform: ADMIN_API_KEY is not a REPLACE_ME placeholder');
    expect(stderr).toContain('widget.yaml: Widget/w: unknown apiVersion/kind example.com/v1/Widget');
    expect(stderr).toContain('kustomization.yaml does not list widget.yaml');
    expect(stderr).toMatch(/Deployment\/webhooks \(app webhooks\): terminationGracePeriodSeconds 30 < preStop 10 s \+ the drain on SIGTERM \d+ s/);
    expect(stderr.match(/KAFKA_BROKERS is not provided \(docker-compose\.yml gives it to/g)).toHaveLength(7);
  });
});
