import { RequestMethod, type Type } from '@nestjs/common';
import { GatewayModule, REQUIRED_SCOPE, scopeFor, type RouteScope } from '@pay/gateway-feature';
import { DEFAULT_BRAND } from '@pay/hosted-ui';

/** One route the gateway registers, as Nest hands it to Fastify. */
export interface GatewayRoute {
  method: string;
  /** Nest's pattern, e.g. `/v1/payments/:id/cancel`. */
  path: string;
  controller: string;
  handler: string;
  /** The scope an API key needs, as the route declares it (`@RequiresScope`, on the handler or its controller). */
  scope?: string;
}

/**
 * Every route of the gateway, read from its controllers' metadata (what Fastify is given), so that a
 * route added later is covered by every test built on this table without anyone writing a test.
 * Sandbox on by default: the test helpers are routes too.
 */
export function gatewayRoutes({ sandbox = true }: { sandbox?: boolean } = {}): GatewayRoute[] {
  const controllers = (GatewayModule.forRoot({ sandbox, adminApiKey: 'x', rateLimitPerSecond: 0, publicBaseUrl: 'https://x', brand: DEFAULT_BRAND }).controllers ?? []) as Type[];
  const routes: GatewayRoute[] = [];
  for (const controller of controllers) {
    const base = String(Reflect.getMetadata('path', controller) ?? '');
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = controller.prototype[name];
      const path = Reflect.getMetadata('path', handler);
      const method = Reflect.getMetadata('method', handler);
      if (path === undefined || method === undefined) continue;
      const resource = (Reflect.getMetadata(REQUIRED_SCOPE, handler) ?? Reflect.getMetadata(REQUIRED_SCOPE, controller)) as RouteScope | undefined;
      routes.push({
        ...(resource === undefined ? {} : { scope: scopeFor(resource, RequestMethod[method as RequestMethod]!) }),
        method: RequestMethod[method as RequestMethod]!,
        path: `/${[base, path].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/'),
        controller: controller.name,
        handler: name,
      });
    }
  }
  return routes;
}

/** A path parameter and the static segment right before it (`payments` for `:id` in `/v1/payments/:id/cancel`). */
export interface PathParam {
  name: string;
  segment: string;
}

export const pathParams = (path: string): PathParam[] => {
  const segments = path.split('/');
  return segments.flatMap((s, i) => (s.startsWith(':') ? [{ name: s.slice(1), segment: segments[i - 1] ?? '' }] : []));
};

/** The path with each parameter replaced by `value(param)`, percent-encoded unless `raw`. */
export const fillPath = (path: string, value: (param: PathParam) => string, { raw = false }: { raw?: boolean } = {}): string => {
  const segments = path.split('/');
  return segments
    .map((s, i) => {
      if (!s.startsWith(':')) return s;
      const v = value({ name: s.slice(1), segment: segments[i - 1] ?? '' });
      return raw ? v : encodeURIComponent(v);
    })
    .join('/');
};

/** The OpenAPI path of a Nest pattern (`/v1/payments/{id}`). */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/** Who may call a route, by its place in the URL space. */
export type RouteAudience = 'integrator' | 'admin' | 'hosted' | 'public';

/** The back office console's pages (/console) are pages with a sign-in of their own, as the hosted pages are. */
export const audienceOf = (route: Pick<GatewayRoute, 'path'>): RouteAudience =>
  route.path.startsWith('/v1/')
    ? 'integrator'
    : route.path.startsWith('/admin/v1/')
      ? 'admin'
      : route.path.startsWith('/hosted/') || route.path === '/console' || route.path.startsWith('/console/')
        ? 'hosted'
        : 'public';

/** A plausible id for each path parameter, by the collection it follows (an impossible one is 404 first). */
export const SAMPLE_IDS: Readonly<Record<string, string>> = {
  integrators: 'int_x1',
  api_keys: 'key_x1',
  beneficiaries: 'ben_x1',
  collections: 'col_x1',
  payments: 'pay_x1',
  cash_payments: 'cpay_x1',
  supplier_payments: 'spay_x1',
  webhook_endpoints: 'we_x1',
  events: 'evt_x1',
  refunds: 're_x1',
  bank_accounts: 'ba_x1',
  payouts: 'po_x1',
  payout_batches: 'pob_x1',
  balance_transactions: 'txn_x1',
};

/** A route's path with each parameter a sample id (SAMPLE_IDS, then `ids`, else `fallback`). */
export const samplePath = (path: string, fallback: string, ids: Readonly<Record<string, string>> = {}): string =>
  path.replace(/\/([a-z_]+)\/:[a-z_]+/g, (_m, segment: string) => `/${segment}/${ids[segment] ?? SAMPLE_IDS[segment] ?? fallback}`);
