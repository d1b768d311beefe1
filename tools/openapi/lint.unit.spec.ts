import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOpenApiDocument, GatewayModule } from '@pay/gateway-feature';
import { DEFAULT_BRAND } from '@pay/hosted-ui';
import { toolBin } from '@pay/testing';

/**
 * The document checked by the linters integrators use, with their published rulesets: Redocly's
 * `recommended` and Spectral's `spectral:oas`. Both must find nothing: no error and no warning.
 */
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
const file = join(dir, 'openapi.json');
const controllers = GatewayModule.forRoot({ sandbox: true, adminApiKey: 'x', rateLimitPerSecond: 0, publicBaseUrl: 'https://pay.example.test', brand: DEFAULT_BRAND }).controllers ?? [];
writeFileSync(file, JSON.stringify(buildOpenApiDocument(controllers, { title: 'Payments API', version: '1', serverUrl: 'https://pay.example.test' })));

const run = (bin: string, args: string[]) => spawnSync(bin, args, { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });

describe('the OpenAPI document, linted by the tools integrators use', () => {
  it('Redocly (recommended ruleset): 0 errors, 0 warnings', () => {
    const result = run(toolBin('redocly', '@redocly/cli'), ['lint', '--extends', 'recommended', '--format', 'json', file]);
    const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect({ totals: report.totals, problems: report.problems.map((p) => `${p.ruleId}: ${p.message}`).slice(0, 20) }).toEqual({ totals: expect.objectContaining({ errors: 0, warnings: 0 }), problems: [] });
  }, 180_000);

  it('Spectral (spectral:oas): 0 errors, 0 warnings', () => {
    writeFileSync(join(dir, '.spectral.json'), JSON.stringify({ extends: ['spectral:oas'] }));
    const result = run(toolBin('spectral', '@stoplight/spectral-cli'), ['lint', '--ruleset', join(dir, '.spectral.json'), '--format', 'json', '--fail-severity', 'hint', '--quiet', file]);
    const findings = (JSON.parse(result.stdout || '[]') as { code: string; message: string; path: string[] }[]).map((f) => `${f.code}: ${f.message} at ${f.path.join('.')}`);
    expect(findings.slice(0, 20)).toEqual([]);
    // A document with a known fault is reported: the linter really ran on this file.
    writeFileSync(join(dir, 'faulty.json'), JSON.stringify({ openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: { '/x': { get: { responses: { '200': { description: 'ok' } } } } } }));
    const faulty = run(toolBin('spectral', '@stoplight/spectral-cli'), ['lint', '--ruleset', join(dir, '.spectral.json'), '--format', 'json', '--quiet', join(dir, 'faulty.json')]);
    expect((JSON.parse(faulty.stdout || '[]') as unknown[]).length).toBeGreaterThan(0);
  }, 180_000);
});
