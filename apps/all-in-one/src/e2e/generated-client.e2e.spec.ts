import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePackage, TOOLS_NODE_MODULES, toolBin } from '@pay/testing';
import { balanceOf, createCustomer, createIntegrator, startTestService, type Integrator, type TestService } from './harness';

const SCRIPT = join(__dirname, '..', '..', '..', '..', 'tools', 'openapi', 'client', 'pay.mts');

/**
 * A client generated from GET /openapi.json by tools we did not write (openapi-typescript for the
 * types, openapi-fetch for the calls): the Pay, refund and balance-transactions script compiles with
 * `tsc --strict` and no cast only if the document declares every field of every answer, and it runs
 * against the service.
 */
describe('a client generated from the OpenAPI document', () => {
  let service: TestService;
  let shop: Integrator;
  let dir: string;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    symlinkSync(TOOLS_NODE_MODULES, join(dir, 'node_modules'), 'dir');
    copyFileSync(SCRIPT, join(dir, 'pay.mts'));
    const document = await service.http('GET', '/openapi.json');
    expect(document.status).toBe(200);
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document.body));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', types: ['node'], outDir: 'out' }, files: ['pay.mts'] }),
    );
  });
  afterAll(() => service.stop());

  it('openapi-typescript generates the types; the script compiles with tsc --strict, no cast in it', () => {
    execFileSync(toolBin('openapi-typescript', 'openapi-typescript'), ['openapi.json', '-o', 'openapi.d.ts'], { cwd: dir, encoding: 'utf8', stdio: 'pipe', timeout: 120_000 });
    requirePackage('openapi-fetch');
    const compiled = (() => {
      try {
        execFileSync(toolBin('tsc', 'typescript'), ['-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8', stdio: 'pipe', timeout: 120_000 });
        return '';
      } catch (error) {
        return String((error as { stdout?: string }).stdout ?? error);
      }
    })();
    expect(compiled).toBe('');
  }, 240_000);

  it('the script pays, refunds and lists the balance transactions against the service; they add up to the balance', async () => {
    const customer = await createCustomer(service, 2_000_000);
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [join(dir, 'out', 'pay.mjs')],
        { cwd: dir, timeout: 120_000, env: { ...process.env, BASE_URL: service.url, API_KEY: shop.apiKey, MERCHANT: shop.merchant, CUSTOMER: customer } },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
      );
    });
    const result = JSON.parse(output) as { payment: string; refund: string; amount_refunded: number; total: number; available: number; by_type: Record<string, number>; net_amount: number };
    expect(result).toMatchObject({ payment: expect.stringMatching(/^pay_/), refund: expect.stringMatching(/^re_/), amount_refunded: 250_000 });
    expect(result.by_type).toEqual({ payment: result.net_amount, refund: -250_000 });
    expect(result.total).toBe(result.available);
    expect(await balanceOf(service, shop.merchant)).toBe(result.available);
  }, 240_000);
});
