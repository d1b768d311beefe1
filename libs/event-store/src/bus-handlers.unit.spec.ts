import { InProcessBus } from '@pay/bus';
import { ServiceError, type IntegrationEvent } from '@pay/contracts';
import { recordBatchWith, recordWith } from './bus-handlers';

const event = (n: number): IntegrationEvent => ({
  id: `evt_${n}`,
  type: 'payment.succeeded',
  createdAt: '2026-01-01T00:00:00.000Z',
  integratorId: 'int_1',
  objectId: `pay_${n}`,
  data: { object_version: 1 },
});

/** The relay sends the webhooks app only what this process did not record itself. */
describe('recordWith and recordBatchWith on one bus', () => {
  let bus: InProcessBus;
  let batches: string[][];
  let refuse: Set<string>;
  let hold: Map<string, () => void>;

  beforeEach(() => {
    bus = new InProcessBus();
    batches = [];
    refuse = new Set();
    hold = new Map();
    bus.handle('events.record', async (recorded) => {
      if (hold.has(recorded.id)) await new Promise<void>((resolve) => hold.set(recorded.id, resolve));
      if (refuse.has(recorded.id)) throw new ServiceError('service_unavailable', 'busy');
      return { recorded: true };
    });
    bus.handle('events.record-batch', async ({ events }) => {
      batches.push(events.map((e) => e.id));
      return { recorded: events.length };
    });
  });

  it('leaves out the events recorded here, and sends the others in order', async () => {
    const record = recordWith(bus);
    await record(event(1));
    await record(event(3));
    await recordBatchWith(bus)([event(1), event(2), event(3), event(4)]);
    expect(batches).toEqual([['evt_2', 'evt_4']]);
  });

  it('sends no request when every event was recorded here', async () => {
    const record = recordWith(bus);
    await record(event(1));
    await recordBatchWith(bus)([event(1)]);
    expect(batches).toEqual([]);
  });

  it('sends an event whose own record failed (the crash or refusal the relay is for)', async () => {
    refuse.add('evt_1');
    await expect(recordWith(bus)(event(1))).rejects.toThrow('busy');
    await recordBatchWith(bus)([event(1)]);
    expect(batches).toEqual([['evt_1']]);
  });

  it('waits for a record in flight: left out once answered, sent when it fails', async () => {
    hold.set('evt_1', () => undefined);
    hold.set('evt_2', () => undefined);
    refuse.add('evt_2');
    const record = recordWith(bus);
    const first = record(event(1));
    const second = record(event(2)).catch(() => undefined);
    const relayed = recordBatchWith(bus)([event(1), event(2)]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(batches).toEqual([]);
    hold.get('evt_1')!();
    hold.get('evt_2')!();
    await Promise.all([first, second, relayed]);
    expect(batches).toEqual([['evt_2']]);
  });

  it('knows nothing of what another bus (another process) recorded', async () => {
    const other = new InProcessBus();
    other.handle('events.record', async () => ({ recorded: true }));
    await recordWith(other)(event(9));
    await recordBatchWith(bus)([event(9)]);
    expect(batches).toEqual([['evt_9']]);
  });
});
