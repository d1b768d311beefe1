import { Logger } from '@nestjs/common';
import type { Clock } from '@pay/kernel';
import { AuditTrail } from '../audit/audited';
import type { AuditLog } from '../directory/audit-log';

/** Who every console action is recorded as: the console signs in with the admin key. */
export const CONSOLE_ACTOR = { type: 'admin', id: null } as const;

const logger = new Logger('audit');

/**
 * A console action another app carries out (a redelivery, a replay), audited as the admin API audits
 * such a change: an intent before it is dispatched, turned into its event by the answer, dropped by a
 * refusal, settled by the sweeper after a crash between the two. Such an action may happen again: each
 * request is its own event (the intent's id is its operation key), recorded once.
 */
export async function auditedAction<T>(
  log: AuditLog,
  clock: Clock,
  action: { action: string; target: { object: string; id: string }; integrator: string | null; requestId: string },
  change: () => Promise<T>,
): Promise<T> {
  const trail = new AuditTrail(action.action, true, CONSOLE_ACTOR, action.integrator, action.requestId, log, clock);
  await trail.intend(action.target);
  let result: T;
  try {
    result = await change();
  } catch (error) {
    await trail.failed(error).catch((dropError: unknown) => logger.warn(`${action.action}: intent not dropped (the sweeper will): ${String(dropError)}`));
    throw error;
  }
  await trail
    .settle(action.target, action.integrator)
    .catch((error: unknown) => logger.error(`${action.action} not recorded yet (the sweeper will, request ${action.requestId}): ${String(error)}`));
  return result;
}
