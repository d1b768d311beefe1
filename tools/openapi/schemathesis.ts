import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { newPortFile, waitUntilServing } from '@pay/topology';

/**
 * `node tools/run.js tools/openapi/schemathesis.ts`: schemathesis (PyPI: `pip install schemathesis`),
 * stateless and stateful, against /openapi.json and the service it describes, started here as
 * `npm start` runs it (sandbox, embedded PostgreSQL in a fresh DATA_DIR, or DATABASE_URL when set).
 * /v1 runs with an integrator's key, /admin/v1 with the admin key. Checks: no 5xx, every answer's
 * status, media type, headers and body as the document declares. Exits non-zero on any failure.
 *
 * Environment: SCHEMATHESIS (the `st` command, default `st`), ST_MAX_EXAMPLES (default 25),
 * ST_MAX_TIME (seconds per run, default 300), ST_WORKERS (default 2), ST_PHASES (default
 * examples,coverage,fuzzing,stateful).
 */
const ROOT = resolve(__dirname, '..', '..');
const st = process.env['SCHEMATHESIS'] ?? 'st';
const adminKey = `admin_${randomBytes(16).toString('hex')}`;
const workDir = mkdtempSync(join(tmpdir(), 'schemathesis-'));
const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_headers_conformance', 'response_schema_conformance'].join(',');

async function main(): Promise<number> {
  const portFile = newPortFile('schemathesis');
  const child = spawn(process.execPath, [join(ROOT, 'tools', 'run.js'), join(ROOT, 'apps', 'all-in-one', 'src', 'main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      PORT_FILE: portFile,
      SANDBOX: 'true',
      RATE_LIMIT_PER_SECOND: '0',
      ADMIN_API_KEY: adminKey,
      DATA_DIR: process.env['DATA_DIR'] ?? mkdtempSync(join(tmpdir(), 'pay-schemathesis-')),
      LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'error',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    const port = await waitUntilServing({ portFile, path: '/health', timeoutMs: 180_000, pollMs: 250, child });
    const base = `http://127.0.0.1:${port}`;
    process.env['PUBLIC_BASE_URL'] ??= base;
    const admin = async (path: string, body: unknown) => {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      return (await response.json()) as Record<string, string>;
    };
    const integrator = await admin('/admin/v1/integrators', { name: 'schemathesis' });
    await admin('/admin/v1/connections', { integrator: integrator['id'], kind: 'merchant', name: 'shop', currency: 'DZD' });
    const run = (name: string, key: string, pathRegex: string): number => {
      console.log(`\n=== schemathesis: ${name} ===`);
      const args = [
        'run',
        `${base}/openapi.json`,
        '--url', base,
        '--header', `Authorization: Bearer ${key}`,
        '--include-path-regex', pathRegex,
        '--checks', CHECKS,
        '--phases', process.env['ST_PHASES'] ?? 'examples,coverage,fuzzing,stateful',
        '--max-examples', process.env['ST_MAX_EXAMPLES'] ?? '25',
        '--max-time', process.env['ST_MAX_TIME'] ?? '300',
        '--workers', process.env['ST_WORKERS'] ?? '2',
        '--continue-on-failure',
        '--suppress-health-check', 'all',
        '--warnings', 'off',
      ];
      // Its cache (.schemathesis/) goes to a directory of its own, not the working tree.
      return spawnSync(st, args, { stdio: 'inherit', cwd: workDir }).status ?? 1;
    };
    const v1 = run('/v1 (integrator key)', integrator['api_key']!, '^/v1/');
    const adminRun = run('/admin/v1 (admin key)', adminKey, '^/admin/v1/');
    return v1 === 0 && adminRun === 0 ? 0 : 1;
  } finally {
    child.kill('SIGTERM');
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
