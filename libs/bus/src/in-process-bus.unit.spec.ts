import { ServiceError, type GetBalance } from '@pay/contracts';
import { busRequestTimeoutsTotal, currentLogContext, metricsRegistry, noteIntegrator, runWithLogContext, type LogContext } from '@pay/observability';
import { InProcessBus } from './in-process-bus';

const balance = (owner: string) => ({ object: 'balance' as const, owner, currency: 'DZD' as const, available: 0 });

describe('InProcessBus: the caller context reaches the handler', () => {
  let bus: InProcessBus;
  let seen: LogContext | undefined;

  beforeEach(() => {
    bus = new InProcessBus();
    bus.handle('ledger.get-balance', async ({ owner }: GetBalance) => {
      seen = currentLogContext();
      // What the handler notes stays on its own lines.
      noteIntegrator('int_from_the_handler');
      if (owner === 'slow') await new Promise((resolve) => setTimeout(resolve, 200));
      return balance(owner);
    });
  });

  it("hands over the caller's request id and correlation id, not its other notes", async () => {
    const caller: LogContext = { requestId: 'req_1', correlationId: 'req_1', integratorId: 'int_1' };
    await runWithLogContext(caller, () => bus.request('ledger.get-balance', { owner: 'own_1' }));
    expect(seen).toEqual({ requestId: 'req_1', correlationId: 'req_1', integratorId: 'int_from_the_handler' });
    expect(caller.integratorId).toBe('int_1');
  });

  it('starts a new chain (a fresh correlation id, no request id) for a request made outside any work', async () => {
    await bus.request('ledger.get-balance', { owner: 'own_1' });
    expect(seen?.requestId).toBeUndefined();
    expect(seen?.correlationId).toMatch(/^cor_[A-Za-z0-9]{24}$/);
  });

  it('times every request by topic, and counts a timeout', async () => {
    const timedOut = async () => (await busRequestTimeoutsTotal.get()).values.find((v) => v.labels['topic'] === 'ledger.get-balance')?.value ?? 0;
    const before = await timedOut();
    await bus.request('ledger.get-balance', { owner: 'own_1' });
    await expect(bus.request('ledger.get-balance', { owner: 'slow' }, { timeoutMs: 20 })).rejects.toEqual(new ServiceError('service_unavailable', 'ledger.get-balance did not answer within 20 ms'));
    expect(await timedOut()).toBe(before + 1);
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(/bus_request_duration_seconds_count\{topic="ledger.get-balance"\} [1-9]/);
    await bus.close();
  });
});
