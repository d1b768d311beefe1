import { Logger } from '@nestjs/common';
import { failpoint, type Clock } from '@pay/kernel';
import { AUDIT_FAILPOINT, AuditTrail } from '../audit/audited';
import type { AuditLog } from '../directory/audit-log';

/** Who every console action is recorded as: the console signs in with the admin key. */
export const CONSOLE_ACTOR = { type: 'admin', id: null } as const;

const logger = new Logger('audit');

type Target = { object: string; id: string };

/**
 * A console action another app carries out (a statement import, a redelivery, a replay), audited as
 * the admin API audits such a change: an intent before it is dispatched, turned into its event by the
 * answer, dropped by a refusal, settled by the sweeper after a crash between the two, so recorded
 * exactly once. A repeatable action (a redelivery) is its own event at each request (the intent's id is
 * its operation key); `settled` names the object the answer made when it is not the intended one (a
 * statement imported before answers its first import).
 */
export async function auditedAction<T>(
  log: AuditLog,
  clock: Clock,
  action: { action: string; target: Target; integrator: string | null; requestId: string; repeatable?: boolean; settled?: (result: T) => Target },
  change: () => Promise<T>,
): Promise<T> {
  const trail = new AuditTrail(action.action, action.repeatable ?? true, CONSOLE_ACTOR, action.integrator, action.requestId, log, clock);
  await trail.intend(action.target);
  let result: T;
  try {
    result = await change();
  } catch (error) {
    await trail.failed(error).catch((dropError: unknown) => logger.warn(`${action.action}: intent not dropped (the sweeper will): ${String(dropError)}`));
    throw error;
  }
  failpoint(AUDIT_FAILPOINT);
  await trail
    .settle(action.settled?.(result) ?? action.target, action.integrator)
    .catch((error: unknown) => logger.error(`${action.action} not recorded yet (the sweeper will, request ${action.requestId}): ${String(error)}`));
  return result;
}
