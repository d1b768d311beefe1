import 'reflect-metadata';
import type { GatewayConfig } from '../gateway.config';
import { GatewayModule } from '../gateway.module';
import { OUTCOMES } from './audit-sweeper';
import { AUDITED_ACTION } from './audited';

/** The actions whose change the gateway stores itself: recorded in the change's transaction, never intended. */
const RECORDED_IN_TRANSACTION = [
  'api_key.created',
  'api_key.rolled',
  'api_key.revoked',
  'integrator.created',
  'connection.created',
  'customer.created',
  'customer.pin_reset',
  'business_user.created',
  'business_user.password_reset',
  'agent.created',
  'agent.password_reset',
];

/** The console's actions that another app carries out (audited by its handlers; the APIs' same actions by their routes' decorators). */
const CONSOLE_DISPATCHED = ['event.redelivered', 'failed_deliveries.redelivered', 'parked_events.replayed'];

describe('audit sweeper', () => {
  it('can read back every audited change that another app makes (a new audited route needs its way here)', () => {
    const controllers = GatewayModule.forRoot({ sandbox: true } as GatewayConfig).controllers ?? [];
    const actions = new Set<string>();
    for (const controller of controllers) {
      const prototype = (controller as { prototype: Record<string, unknown> }).prototype;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const action = typeof prototype[name] === 'function' ? (Reflect.getMetadata(AUDITED_ACTION, prototype[name] as object) as string | undefined) : undefined;
        if (action !== undefined) actions.add(action);
      }
    }
    expect(actions.size).toBeGreaterThan(15);
    const dispatched = [...new Set([...[...actions].filter((action) => !RECORDED_IN_TRANSACTION.includes(action)), ...CONSOLE_DISPATCHED])].sort();
    expect(dispatched).toEqual(Object.keys(OUTCOMES).sort());
  });
});
