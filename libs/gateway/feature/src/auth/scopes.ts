import { applyDecorators, SetMetadata } from '@nestjs/common';

/** The resources a restricted key's scopes name (contract section 16). */
export const SCOPE_RESOURCES = [
  'payments',
  'cash_payments',
  'supplier_payments',
  'beneficiaries',
  'collections',
  'refunds',
  'payouts',
  'bank_accounts',
  'balances',
  'events',
  'webhook_endpoints',
] as const;
export type ScopeResource = (typeof SCOPE_RESOURCES)[number];

/** Every /v1 route: the keys the admin API issues. Only such a key manages keys and reads the audit trail. */
export const FULL_ACCESS = '*';
export type RouteScope = ScopeResource | typeof FULL_ACCESS;

/** The metadata the ApiKeyGuard reads: the resource a route acts on (read for GET, write otherwise). */
export const REQUIRED_SCOPE = 'pay:auth:scope';

/**
 * Declares the resource of a controller (or of one handler, which overrides its controller's): a GET
 * needs `<resource>:read`, any other method `<resource>:write` (a test helper is a POST: write).
 * `FULL_ACCESS` admits only `["*"]` keys. A /v1 route without a declaration is refused by the guard.
 */
export const RequiresScope = (resource: RouteScope) => applyDecorators(SetMetadata(REQUIRED_SCOPE, resource));

/** The scope a request on a route declared with `resource` needs, by its HTTP method. */
export const scopeFor = (resource: RouteScope, method: string): string =>
  resource === FULL_ACCESS ? FULL_ACCESS : `${resource}:${method === 'GET' || method === 'HEAD' ? 'read' : 'write'}`;

const SCOPE = new RegExp(`^(${SCOPE_RESOURCES.join('|')}):(read|write)$`);
export const isScope = (scope: string): boolean => SCOPE.test(scope);

/** Whether a key with `granted` scopes may make a request needing `needed` (write includes read). */
export const grants = (granted: readonly string[], needed: string): boolean => {
  if (granted.includes(FULL_ACCESS)) return true;
  if (needed === FULL_ACCESS) return false;
  if (granted.includes(needed)) return true;
  const [resource, access] = needed.split(':');
  return access === 'read' && granted.includes(`${resource}:write`);
};
