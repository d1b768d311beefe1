import type { Pool } from 'pg';
import { newId } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { onceKey } from '../audit/audited';
import { GATEWAY_MIGRATIONS } from '../gateway.module';
import { AuditLog, type AuditEntry, type AuditIntent, type IntentOutcome } from './audit-log';

/** The audit trail's exactly-once parts on a real PostgreSQL: operation keys, intents, the sweep. */
describe('AuditLog', () => {
  let pool: Pool;
  let log: AuditLog;
  const t0 = new Date('2026-11-28T10:00:00.000Z');
  const old = new Date(t0.getTime() - 60_000);

  beforeAll(async () => {
    const url = await createTestDatabase('gw_audit_log');
    await runMigrations(url, [GATEWAY_MIGRATIONS]);
    pool = createPool(url, { max: 6, statementTimeoutMs: 10_000 });
    log = new AuditLog(pool);
  });
  afterAll(() => pool.end());

  const intent = (action: string, at = old, repeatable = false): AuditIntent => {
    const id = newId('auditEvent');
    const target = { object: action.split('.')[0]!, id: newId('payout') };
    return { id, operationKey: repeatable ? id : onceKey(action, target.id), action, actor: { type: 'api_key', id: newId('apiKey') }, integrator: newId('integrator'), target, requestId: newId('request'), at, details: {} };
  };
  const entryOf = (i: AuditIntent): AuditEntry => ({ action: i.action, actor: i.actor, integrator: i.integrator, target: i.target, requestId: i.requestId, at: i.at, operationKey: i.operationKey });
  const rowsOf = async (targetId: string) => (await pool.query('SELECT action, request_id FROM gw_audit_events WHERE target_id = $1', [targetId])).rows;
  const intentExists = async (id: string) => (await pool.query('SELECT 1 FROM gw_audit_intents WHERE id = $1', [id])).rowCount === 1;
  const sweepWith = (outcome: (i: AuditIntent) => Promise<IntentOutcome>) => log.sweep(t0, 1000, outcome, async (i) => entryOf(i));

  it('records a change that happens once to its target once, however often it is recorded', async () => {
    const i = intent('payout.created');
    expect(await log.record(entryOf(i))).toMatch(/^aud_/);
    expect(await log.record(entryOf(i))).toBeUndefined();
    expect(await rowsOf(i.target.id)).toHaveLength(1);
  });

  it('settles an intent into its event in one transaction; settling it again adds nothing', async () => {
    const i = intent('payout.created');
    await log.intend(i);
    await log.settle(i.id, entryOf(i));
    expect(await intentExists(i.id)).toBe(false);
    await log.settle(i.id, entryOf(i));
    expect(await rowsOf(i.target.id)).toEqual([{ action: 'payout.created', request_id: i.requestId }]);
  });

  it('a repeatable change keyed by its intent: two requests, two events', async () => {
    const first = intent('webhook_endpoint.updated', old, true);
    const second = { ...intent('webhook_endpoint.updated', old, true), target: first.target };
    for (const i of [first, second]) {
      await log.intend(i);
      await log.settle(i.id, entryOf(i));
    }
    expect(await rowsOf(first.target.id)).toHaveLength(2);
  });

  it('the sweep records what was done, drops what was not, keeps what it cannot tell and what is still young', async () => {
    const done = intent('refund.created');
    const notDone = intent('refund.created');
    const unknown = intent('refund.created');
    const young = intent('refund.created', t0);
    for (const i of [done, notDone, unknown, young]) await log.intend(i);
    const outcomes = new Map<string, IntentOutcome>([
      [done.id, { done: true, answer: {} }],
      [notDone.id, { done: false }],
      [unknown.id, undefined],
    ]);
    const asked: string[] = [];
    await sweepWith(async (i) => (asked.push(i.id), outcomes.get(i.id)));
    expect(asked).not.toContain(young.id);
    expect(await rowsOf(done.target.id)).toEqual([{ action: 'refund.created', request_id: done.requestId }]);
    expect(await rowsOf(notDone.target.id)).toEqual([]);
    expect([await intentExists(done.id), await intentExists(notDone.id), await intentExists(unknown.id), await intentExists(young.id)]).toEqual([false, false, true, true]);
    await log.drop(unknown.id);
    await log.drop(young.id);
  });

  it('two gateways sweeping at once, and the late answer of the request itself, record each change once', async () => {
    const intents = Array.from({ length: 20 }, () => intent('payout.created'));
    for (const i of intents) await log.intend(i);
    const slowlyDone = async (): Promise<IntentOutcome> => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { done: true, answer: {} };
    };
    await Promise.all([sweepWith(slowlyDone), sweepWith(slowlyDone), ...intents.slice(0, 5).map((i) => log.settle(i.id, entryOf(i)))]);
    for (const i of intents) {
      expect(await rowsOf(i.target.id)).toHaveLength(1);
      expect(await intentExists(i.id)).toBe(false);
    }
  });
});
