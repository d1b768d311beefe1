import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOGUES } from '@pay/hosted-ui';
import { AUDIT_SWEEP_INTERVAL_MS, randomBase62 } from '@pay/kernel';
import { consolePost, consoleSession } from './console-checks';
import { plain } from './hosted-checks';
import { statement } from './payouts-files';
import { afterAuditSweep, CRASH_TEST_TIMEOUT_MS, startServiceProcess, type ServiceProcess } from './process-harness';

/**
 * The console's statement import is audited as the admin API's is: an intent before the payments app
 * applies it, settled by the answer or, when the gateway dies between the two, by the sweeper after a
 * restart (it reads the import back). The service runs as `npm start` does; a failpoint kills it
 * (SIGKILL) after the import answered, before its event is written. Recorded exactly once; importing
 * the same statement again applies and records nothing.
 */
describe('console: a statement import survives a crash between the change and its audit event', () => {
  let dataDir: string;
  let running: ServiceProcess | undefined;
  const adminKey = `admin_${randomBase62(32)}`;
  const env = () => ({ DATA_DIR: dataDir, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' });
  const imports = async (): Promise<any[]> => {
    const response = await running!.http('GET', '/admin/v1/audit_events?action=bank_statement_import.created&limit=100', { key: adminKey });
    expect(response.status).toBe(200);
    return response.body.data;
  };
  const xml = statement('STMT-CONSOLE-CRASH', [{ e2e: 'po_unknown', amount: '5.00', currency: 'DZD', indicator: 'DBIT', ref: 'CRASH-1' }]);
  const apply = async () => {
    const session = await consoleSession(running!.url, adminKey);
    return consolePost(running!.url, '/console/finance/payouts/statements', session.cookie, { csrf: session.csrf, step: 'apply', statement: xml });
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pay-console-audit-crash-'));
  });
  afterAll(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'after a restart the import is recorded once, by the sweeper; the same statement again records nothing',
    async () => {
      running = await startServiceProcess({ ...env(), FAILPOINTS: 'audit.after-change' });
      // The process dies inside this request, after the payments app applied the statement.
      await expect(apply()).rejects.toThrow();
      expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
      expect(running.output()).toContain('failpoint audit.after-change');

      running = await startServiceProcess(env());
      expect(await imports()).toEqual([]);
      // Past the bound an intent waits for its request, the sweeper settles it (the test clock moved by an integrator's helper).
      const integrator = (await running.http('POST', '/admin/v1/integrators', { key: adminKey, body: { name: 'Console audit crash' } })).body;
      const events = await afterAuditSweep(running, integrator.api_key, imports);
      expect(events).toEqual([
        {
          id: expect.stringMatching(/^aud_/),
          object: 'audit_event',
          action: 'bank_statement_import.created',
          actor: { type: 'admin', id: null },
          integrator: null,
          target: { object: 'bank_statement_import', id: expect.stringMatching(/^bsi_/) },
          request_id: expect.stringMatching(/^req_/),
          created_at: expect.any(String),
        },
      ]);

      // The same statement again: the payments app answers the first import (applied once, before the
      // crash), and its event is the one already recorded.
      const again = await apply();
      expect(again.status).toBe(200);
      const page = plain(await again.text());
      expect(Object.values(CATALOGUES).some((catalogue) => page.includes(plain(catalogue['console.finance.import_duplicate'])))).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 2 * AUDIT_SWEEP_INTERVAL_MS));
      expect(await imports()).toEqual(events);
    },
    2 * CRASH_TEST_TIMEOUT_MS,
  );
});
