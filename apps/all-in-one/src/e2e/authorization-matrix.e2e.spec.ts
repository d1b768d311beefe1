import { CATALOGUES } from '@pay/hosted-ui';
import { randomBase62 } from '@pay/kernel';
import { idempotencyKey, startTestService, type Response, type TestService } from './harness';
import { SCOPE_RESOURCES } from '@pay/gateway-feature';
import { audienceOf, fillPath, gatewayRoutes, openApiPath, pathParams, type GatewayRoute } from './route-table';
import { bodySchema, changedPaths, createWorld, ownedIds, queryParameters, sampleFromSchema, snapshot, trialBalance, type World } from './world';

/**
 * The authorization matrix, generated from the route table (every route the gateway registers): a
 * route added later is covered here without anyone writing a test. For every route:
 *  (a) no key, and every kind of wrong key: 401 authentication_required (hosted pages: what their own
 *      sign-in answers; the API description: public);
 *  (b) integrator B's key on integrator A's ids (in the path, or one at a time in the body or query):
 *      404 resource_not_found (or what the contract says for a connection or a beneficiary named in a
 *      body), no id of A in the answer, and nothing of A, nor the ledger, changed;
 *  (c) an integrator key on the admin API: 401;
 *  (d) a finance key: 403 forbidden on every admin route but the ledger's reads, 401 on /v1;
 *  (e) a restricted key lacking the scope a /v1 route declares: 403 insufficient_scope, the scope in
 *      `param`, nothing changes; a key with exactly that scope passes the check.
 * Each path parameter gets the id of the collection named by the segment before it (`payments` in
 * `/v1/payments/:id/cancel`); a route whose segment names no known collection fails the test, asking
 * for its ids in world.ts.
 */

/** The ledger's reads a finance key may call (contract sections 10 and 17); every other admin route is `forbidden` to it. */
const FINANCE_READS = new Set([
  'GET /admin/v1/balances/:owner',
  'GET /admin/v1/ledger/trial_balance',
  'GET /admin/v1/ledger/accounts',
  'GET /admin/v1/ledger/accounts/:id/statement',
  'GET /admin/v1/ledger/entries',
  'GET /admin/v1/ledger/fee_revenue',
  'GET /admin/v1/ledger/cash_in_transit',
  'GET /admin/v1/ledger/chain',
  'GET /admin/v1/ledger/chain/head',
  'GET /admin/v1/ledger/signing_keys',
  'GET /admin/v1/ledger/chain/export',
  'GET /admin/v1/audit_events',
]);

/**
 * What a hosted page answers a caller without a session (API keys mean nothing there): the pages
 * reached by an object's unguessable id are shown (with a sign-in form when acting needs one); the
 * agents' pages send to their sign-in page; every form post is refused with an HTML page, 403,
 * "Form expired" for a sign-in without the sign-in form's CSRF cookie, "Sign in first" otherwise.
 * A hosted route missing here gets the rule of its method: GET shown or sent to a sign-in, POST 403.
 */
interface HostedAnswer {
  status: number;
  type: RegExp;
  location?: string;
  contains?: string;
}
const PAGE = /^text\/html; charset=utf-8$/;
/** Pages are in French unless the browser asks otherwise (fetch sends no Accept-Language). */
const fr = CATALOGUES.fr;
const SIGN_IN_FIRST: HostedAnswer = { status: 403, type: PAGE, contains: `<h1>${fr['page.sign_in_first']}</h1>` };
const FORM_EXPIRED: HostedAnswer = { status: 403, type: PAGE, contains: `<h1>${fr['page.form_expired']}</h1>` };
const CONSOLE_SIGN_IN_FIRST: HostedAnswer = { status: 403, type: PAGE, contains: `<h1>${fr['console.sign_in_first']}</h1>` };
const TO_AGENT_SIGN_IN: HostedAnswer = { status: 303, type: /.*/, location: '/hosted/agent' };
const HOSTED: Record<string, HostedAnswer> = {
  'GET /hosted/payments/:id': { status: 200, type: PAGE, contains: fr['payment.eyebrow'] },
  'POST /hosted/payments/:id/sign-in': FORM_EXPIRED,
  'POST /hosted/payments/:id/authorize': SIGN_IN_FIRST,
  'POST /hosted/payments/:id/decline': SIGN_IN_FIRST,
  'GET /hosted/supplier_payments/:id': { status: 200, type: PAGE, contains: fr['approval.eyebrow'] },
  'POST /hosted/supplier_payments/:id/sign-in': FORM_EXPIRED,
  'POST /hosted/supplier_payments/:id/approve': SIGN_IN_FIRST,
  'POST /hosted/supplier_payments/:id/reject': SIGN_IN_FIRST,
  'GET /hosted/cash_payments/:id/instructions': { status: 200, type: PAGE, contains: fr['cash.eyebrow'] },
  'GET /hosted/cash_payments/:id/qr.png': { status: 200, type: /^image\/png$/ },
  'GET /hosted/agent': { status: 200, type: PAGE, contains: fr['agent.sign_in_title'] },
  'GET /hosted/assets/pages.css': { status: 200, type: /^text\/css; charset=utf-8$/, contains: '--brand:' },
  'GET /hosted/assets/icon.svg': { status: 200, type: /^image\/svg\+xml$/, contains: '<svg' },
  'GET /hosted/assets/agent-scan.js': { status: 200, type: /^text\/javascript; charset=utf-8$/, contains: 'BarcodeDetector' },
  'GET /hosted/assets/forms.js': { status: 200, type: /^text\/javascript; charset=utf-8$/, contains: 'data-pending' },
  'POST /hosted/agent/sign-in': FORM_EXPIRED,
  'POST /hosted/agent/sign-out': SIGN_IN_FIRST,
  'POST /hosted/agent/find-cash-payment': SIGN_IN_FIRST,
  'GET /hosted/agent/cash_payments/:id': TO_AGENT_SIGN_IN,
  'POST /hosted/agent/cash_payments/:id/pay': SIGN_IN_FIRST,
  'POST /hosted/agent/find-collection': SIGN_IN_FIRST,
  'GET /hosted/agent/collections/:id': TO_AGENT_SIGN_IN,
  'GET /hosted/agent/collections/:id/qr.png': { status: 404, type: /.*/ },
  'POST /hosted/agent/collections/:id/validate-deposit': SIGN_IN_FIRST,
  'POST /hosted/agent/handover': SIGN_IN_FIRST,
  // The back office console: its pages send to its sign-in, its forms want a session (its own page).
  'POST /console/sign-in': { status: 303, type: /.*/, location: '/console/sign-in?error=expired' },
  'POST /console/sign-out': CONSOLE_SIGN_IN_FIRST,
  'POST /console/objects/:id/redeliver': CONSOLE_SIGN_IN_FIRST,
  'POST /console/operations/replay': CONSOLE_SIGN_IN_FIRST,
  'POST /console/operations/redeliver': CONSOLE_SIGN_IN_FIRST,
  'GET /console/sign-in': { status: 200, type: PAGE, contains: fr['console.sign_in_title'] },
  'GET /console/assets/console.css': { status: 200, type: /^text\/css; charset=utf-8$/, contains: '.sections' },
};

/**
 * What B gets for naming one of A's ids in a body or query parameter (contract sections 2, 5, 9, 14):
 * a connection is not B's (403), nor a beneficiary (403); a payment to refund is not found (404); a
 * list filter finds nothing of A's (an empty list); a cursor is not an id of B's list (400).
 */
type ForeignFieldAnswer = { status: number; code: string } | 'empty list';
const FOREIGN_FIELD: Record<string, ForeignFieldAnswer> = {
  'body merchant_connection': { status: 403, code: 'connection_not_authorized' },
  'body payer_connection': { status: 403, code: 'connection_not_authorized' },
  'body beneficiary_connection': { status: 403, code: 'connection_not_authorized' },
  'body beneficiary': { status: 403, code: 'beneficiary_not_authorized' },
  'body payment': { status: 404, code: 'resource_not_found' },
  'body connection': { status: 403, code: 'connection_not_authorized' },
  'body bank_account': { status: 404, code: 'resource_not_found' },
  'query payer_connection': { status: 403, code: 'connection_not_authorized' },
  'query connection': { status: 403, code: 'connection_not_authorized' },
  'query merchant_connection': 'empty list',
  'query payment': 'empty list',
  'query source': 'empty list',
  'query object_id': 'empty list',
  'query starting_after': { status: 400, code: 'invalid_request' },
};

/**
 * What B gets for one of A's ids in the path: 404 resource_not_found (contract section 2), except a
 * path parameter that names a connection, refused like a connection named in a body (section 9).
 */
const FOREIGN_PATH: Record<string, { status: number; code: string }> = {
  balances: { status: 403, code: 'connection_not_authorized' },
};
const NOT_FOUND = { status: 404, code: 'resource_not_found' };

interface Call {
  method: string;
  path: string;
  body?: unknown;
  rawBody?: string;
  headers: Record<string, string>;
}

const key = (route: Pick<GatewayRoute, 'method' | 'path'>) => `${route.method} ${route.path}`;
const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
const hourAhead = () => new Date(Date.now() + 3_600_000).toISOString();

/** Problems of an answer that should be `status` `code` in the contract's error shape (section 2), with a Request-Id. */
function errorProblems(response: Response, status: number, codes: string | string[]): string[] {
  const problems: string[] = [];
  const allowed = Array.isArray(codes) ? codes : [codes];
  if (response.status !== status) problems.push(`status ${response.status}, expected ${status}`);
  const body = response.body;
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error') return [...problems, `not the error shape: ${JSON.stringify(body).slice(0, 200)}`];
  const { error } = body;
  if (!allowed.includes(error.code)) problems.push(`code ${error.code}, expected ${allowed.join(' or ')}`);
  if (typeof error.message !== 'string' || error.message === '') problems.push('no message');
  if (Object.keys(error).some((k) => !['code', 'message', 'param'].includes(k))) problems.push(`extra fields: ${Object.keys(error).join()}`);
  if (!/^req_/.test(response.headers.get('request-id') ?? '')) problems.push('no Request-Id');
  if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) problems.push(`content-type ${response.headers.get('content-type')}`);
  return problems;
}

// Each test walks every route with several callers, sequentially: minutes on a shared, busy machine.
jest.setTimeout(300_000);

describe('authorization matrix: every route of the route table, every kind of caller', () => {
  const routes = gatewayRoutes();
  let service: TestService;
  let A: World;
  let B: World;
  let cashPoint: string;
  let financeKey: string;
  let document: any;
  let idsOfA: string[];

  beforeAll(async () => {
    service = await startTestService();
    const point = await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Point Matrix', address: '1 rue Didouche Mourad, Alger' } });
    expect(point.status).toBe(201);
    cashPoint = point.body.id;
    A = await createWorld(service, { cashPoint, open: true });
    B = await createWorld(service, { cashPoint, open: true });
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Matrix' } });
    expect(finance.status).toBe(201);
    financeKey = finance.body.api_key;
    document = (await service.http('GET', '/openapi.json')).body;
    idsOfA = await ownedIds(service, A);
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await Promise.all([A?.receiver.stop(), B?.receiver.stop()]);
  });

  /** A value for a body or query parameter, as `world`'s owner would send it (its own ids). */
  const valueOf = (name: string, schema: any, world: World): unknown => {
    const known: Record<string, unknown> = {
      ...world.fields,
      customer: world.customer,
      cash_point: cashPoint,
      url: world.receiver.url,
      amount: 100_000,
      seconds: 1,
      since: hourAgo(),
      from: hourAgo(),
      to: hourAhead(),
      // The admin API's names for the world's own things.
      integrator: world.integrator.id,
      business: world.business,
      account: world.integrator.merchant,
    };
    return Object.hasOwn(known, name) ? known[name] : sampleFromSchema(schema);
  };

  /** The ids of `world` for a path parameter, by the collection segment before it. */
  const idsFor = (world: World, segment: string): string[] => {
    if (segment === 'assets') return ['swagger-ui.css'];
    const ids = world.ids[segment];
    if (!ids) throw new Error(`no id for a path parameter after /${segment}/: add the collection's ids to world.ts`);
    return ids;
  };

  /** The candidates of a route's path: every id of A (or B) for its parameter (one parameter per route today; more take the first id). */
  const candidates = (route: GatewayRoute): number[] => {
    const params = pathParams(route.path);
    return params.length === 0 ? [0] : idsFor(A, params[0]!.segment).map((_id, index) => index);
  };

  /**
   * The request `route` as `world`'s owner would make it: its ids in the path (`pathWorld`'s, when
   * given), a valid body from the route's schema in the served OpenAPI document, its required query
   * parameters; `foreign` replaces one body or query parameter with another value.
   */
  const callFor = (route: GatewayRoute, world: World, { pathWorld = world, candidate = 0, foreign }: { pathWorld?: World; candidate?: number; foreign?: { in: 'body' | 'query'; name: string; value: string } } = {}): Call => {
    const path = fillPath(route.path, (p) => {
      const ids = idsFor(pathWorld, p.segment);
      return ids[Math.min(candidate, ids.length - 1)]!;
    });
    const doc = openApiPath(route.path);
    const query = new URLSearchParams();
    for (const param of queryParameters(document, route.method, doc)) {
      if (foreign?.in === 'query' && foreign.name === param.name) query.set(param.name, foreign.value);
      else if (param.required) query.set(param.name, String(valueOf(param.name, param.schema, world)));
    }
    const headers: Record<string, string> = {};
    let body: unknown;
    let rawBody: string | undefined;
    const schema = bodySchema(document, route.method, doc);
    if (schema) {
      body = Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([name]) => (schema.required ?? []).includes(name) || Object.hasOwn(world.fields, name))
          .map(([name, property]) => [name, foreign?.in === 'body' && foreign.name === name ? foreign.value : valueOf(name, property, world)]),
      );
    } else if (audienceOf(route) === 'hosted' && route.method === 'POST') {
      rawBody = 'csrf=forged&phone=%2B213555000111&pin=1234&login=someone&password=0123456789&reference=1234567890&collection=col_x&code=123456&amount=1';
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    if (route.method === 'POST' && route.path.startsWith('/v1/') && pathParams(route.path).length === 0) headers['Idempotency-Key'] = idempotencyKey();
    const search = query.toString();
    return { method: route.method, path: search ? `${path}?${search}` : path, body, rawBody, headers };
  };

  /** Real HTTP, redirects not followed (a hosted page's redirect to its sign-in is an answer of its own). */
  const send = async (call: Call, authorization: string | undefined): Promise<Response> => {
    const payload = call.rawBody ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
    const response = await fetch(`${service.url}${call.path}`, {
      method: call.method,
      redirect: 'manual',
      headers: {
        ...(payload !== undefined && call.rawBody === undefined ? { 'Content-Type': 'application/json' } : {}),
        ...call.headers,
        ...(authorization === undefined ? {} : { Authorization: authorization }),
      },
      body: payload,
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* an HTML page or an image */
    }
    return { status: response.status, body, headers: response.headers };
  };

  /** The state of A and of the ledger, compared before and after. */
  const stateOfA = async () => ({ a: await snapshot(service, A), ledger: await trialBalance(service) });
  const expectUnchanged = (before: { a: Record<string, unknown>; ledger: unknown }, after: { a: Record<string, unknown>; ledger: unknown }, context: string) => {
    expect({ context, changed: changedPaths(before.a, after.a) }).toEqual({ context, changed: [] });
    expect({ context, ledger: after.ledger }).toEqual({ context, ledger: before.ledger });
  };

  /** A's ids in an answer to B that B did not send itself: a leak across integrators. */
  const leakedIds = (call: Call, response: Response): string[] => {
    const sent = `${call.path} ${JSON.stringify(call.body ?? '')}`;
    const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
    return idsOfA.filter((id) => text.includes(id) && !sent.includes(id));
  };

  it('the route table is complete: every route is an integrator, admin, hosted or public route, and its parameters have ids', () => {
    expect(routes.length).toBeGreaterThan(80);
    for (const route of routes) for (const param of pathParams(route.path)) expect(() => idsFor(A, param.segment)).not.toThrow();
    expect(routes.filter((r) => FINANCE_READS.has(key(r))).map(key).sort()).toEqual([...FINANCE_READS].sort());
    // Every /v1 route declares its scope (the guard refuses a route that does not: it could not ship).
    expect(routes.filter((r) => audienceOf(r) === 'integrator' && r.scope === undefined).map(key)).toEqual([]);
    for (const route of routes.filter((r) => audienceOf(r) === 'integrator')) {
      expect({ route: key(route), scope: route.scope }).toEqual({ route: key(route), scope: route.scope === '*' ? '*' : expect.stringMatching(route.method === 'GET' ? /^[a-z_]+:read$/ : /^[a-z_]+:write$/) });
    }
  });

  it('(e) a restricted key lacking the scope a /v1 route declares: 403 insufficient_scope naming the scope, nothing changes; the scope alone passes the check', async () => {
    const resources = SCOPE_RESOURCES as readonly string[];
    const keys = new Map<string, string>();
    /** A restricted key of A's with `scopes` (created once per set). */
    const keyWith = async (scopes: string[]): Promise<string> => {
      const name = scopes.join(' ');
      if (!keys.has(name)) {
        const created = await service.http('POST', '/v1/api_keys', { key: A.key, body: { name: `matrix ${keys.size}`, scopes } });
        expect(created.status).toBe(201);
        keys.set(name, created.body.api_key);
      }
      return keys.get(name)!;
    };
    /** The most a key may hold while lacking `scope`: every other resource's write, and read of its own for a write. */
    const lacking = (scope: string): string[] => {
      const [resource, access] = scope.split(':');
      return [...resources.filter((r) => r !== resource).map((r) => `${r}:write`), ...(access === 'write' ? [`${resource}:read`] : [])];
    };
    const before = await stateOfA();
    const problems: unknown[] = [];
    let checked = 0;
    for (const route of routes.filter((r) => audienceOf(r) === 'integrator')) {
      const scope = route.scope!;
      const call = callFor(route, A);
      const refused = await send(call, `Bearer ${await keyWith(lacking(scope))}`);
      checked++;
      const found = errorProblems(refused, 403, 'insufficient_scope');
      if (refused.body?.error?.param !== scope) found.push(`param ${refused.body?.error?.param}, expected ${scope}`);
      if (found.length > 0) problems.push({ route: key(route), lacking: lacking(scope).length, problems: found });
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
    expectUnchanged(before, await stateOfA(), 'after (e) refusals');
    // Control: the scope alone passes the check (reads only: the answer is A's, nothing changes).
    for (const route of routes.filter((r) => audienceOf(r) === 'integrator' && r.method === 'GET' && r.scope !== '*')) {
      const response = await send(callFor(route, A), `Bearer ${await keyWith([route.scope!])}`);
      if (response.status === 403 || response.status === 401) problems.push({ route: key(route), status: response.status, body: response.body });
    }
    expect(problems).toEqual([]);
  });

  it('(a) no key or a wrong key: 401 in the error shape on /v1 and /admin/v1; hosted pages answer their own sign-in; the API description is public', async () => {
    const before = await stateOfA();
    const wrong: [string, string | undefined][] = [
      ['no Authorization header', undefined],
      ['an unknown integrator key', `Bearer sk_${randomBase62(32)}`],
      ["a revoked key of A's", `Bearer ${A.revokedKey}`],
      ['an unknown finance key', `Bearer fk_${randomBase62(32)}`],
      ['a wrong admin key', `Bearer admin_${randomBase62(32)}`],
      ['another scheme', `Basic ${Buffer.from(`${A.key}:`).toString('base64')}`],
      ['a bearer without a token', 'Bearer'],
      ["A's key without the scheme", A.key],
    ];
    const problems: unknown[] = [];
    let checked = 0;
    for (const route of routes) {
      const audience = audienceOf(route);
      const callers: [string, string | undefined][] = [
        ...wrong,
        ...(audience === 'integrator' ? ([['the admin key', `Bearer ${service.adminKey}`]] as [string, string][]) : []),
        ...(audience === 'hosted' || audience === 'public' ? ([["A's integrator key", `Bearer ${A.key}`], ['the admin key', `Bearer ${service.adminKey}`]] as [string, string][]) : []),
      ];
      for (const candidate of candidates(route)) {
        const call = callFor(route, A, { candidate });
        for (const [caller, authorization] of callers) {
          const response = await send(call, authorization);
          checked++;
          let found: string[];
          if (audience === 'integrator' || audience === 'admin') {
            found = errorProblems(response, 401, 'authentication_required');
          } else if (audience === 'public') {
            found = response.status === 200 ? [] : [`status ${response.status}, expected 200`];
          } else {
            const expected = HOSTED[key(route)] ?? (route.method === 'GET' ? undefined : SIGN_IN_FIRST);
            found = [];
            if (!expected) {
              if (![200, 303].includes(response.status)) found.push(`status ${response.status}, expected the page or a sign-in redirect`);
            } else {
              if (response.status !== expected.status) found.push(`status ${response.status}, expected ${expected.status}`);
              if (!expected.type.test(response.headers.get('content-type') ?? '')) found.push(`content-type ${response.headers.get('content-type')}`);
              if (expected.location !== undefined && response.headers.get('location') !== expected.location) found.push(`location ${response.headers.get('location')}`);
              if (expected.contains !== undefined && !String(response.body).includes(expected.contains)) found.push(`no '${expected.contains}' in the page`);
            }
            if (response.headers.get('set-cookie')?.includes('pay_session=') && !response.headers.get('set-cookie')?.includes('pay_session=;')) found.push('a session was opened');
          }
          if (found.length > 0) problems.push({ route: key(route), path: call.path, caller, problems: found });
        }
      }
    }
    expect(checked).toBeGreaterThan(routes.length * wrong.length);
    expect(problems).toEqual([]);
    expectUnchanged(before, await stateOfA(), 'after (a)');
  });

  it('(c) an integrator key on the admin API: 401 authentication_required, nothing changes', async () => {
    const before = await stateOfA();
    const problems: unknown[] = [];
    const admin = routes.filter((r) => audienceOf(r) === 'admin');
    expect(admin.length).toBeGreaterThan(15);
    for (const route of admin) {
      for (const candidate of candidates(route)) {
        // The body names A's own things: if the key were taken, A's state or the ledger would change.
        const call = callFor(route, A, { candidate });
        for (const [caller, integratorKey] of [
          ["A's key", A.key],
          ["B's key", B.key],
        ]) {
          const found = errorProblems(await send(call, `Bearer ${integratorKey}`), 401, 'authentication_required');
          if (found.length > 0) problems.push({ route: key(route), path: call.path, caller, problems: found });
        }
      }
    }
    expect(problems).toEqual([]);
    expectUnchanged(before, await stateOfA(), 'after (c)');
  });

  it('(d) a finance key: 403 forbidden on every admin route but the ledger reads (which it may call), 401 on every /v1 route, nothing changes', async () => {
    const before = await stateOfA();
    const problems: unknown[] = [];
    for (const route of routes.filter((r) => ['admin', 'integrator'].includes(audienceOf(r)))) {
      for (const candidate of candidates(route)) {
        const call = callFor(route, A, { candidate });
        const response = await send(call, `Bearer ${financeKey}`);
        let found: string[];
        if (audienceOf(route) === 'integrator') found = errorProblems(response, 401, 'authentication_required');
        else if (!FINANCE_READS.has(key(route))) found = errorProblems(response, 403, 'forbidden');
        else found = [401, 403].includes(response.status) || response.status >= 500 ? [`status ${response.status} on a ledger read`] : [];
        if (found.length > 0) problems.push({ route: key(route), path: call.path, problems: found });
      }
    }
    expect(problems).toEqual([]);
    expectUnchanged(before, await stateOfA(), 'after (d)');
  });

  describe("(b) integrator B's key on integrator A's ids", () => {
    const integratorRoutes = () => routes.filter((r) => audienceOf(r) === 'integrator');

    /** The body and query parameters of a route that take one of the integrator's own ids. */
    const foreignFields = (route: GatewayRoute): { in: 'body' | 'query'; name: string; value: string }[] => {
      const doc = openApiPath(route.path);
      const listSegment = route.path.split('/').filter((s) => s && !s.startsWith(':')).pop()!;
      const valueOfA = (name: string): string | undefined => (name === 'starting_after' ? A.ids[listSegment]?.[0] : A.fields[name]);
      const fields: { in: 'body' | 'query'; name: string; value: string }[] = [];
      for (const name of Object.keys(bodySchema(document, route.method, doc)?.properties ?? {})) {
        const value = valueOfA(name);
        if (value !== undefined && name !== 'starting_after') fields.push({ in: 'body', name, value });
      }
      for (const { name } of queryParameters(document, route.method, doc)) {
        const value = valueOfA(name);
        if (value !== undefined) fields.push({ in: 'query', name, value });
      }
      return fields;
    };

    it("an id of A's in the path: 404 resource_not_found (403 for a connection), no id of A's in the answer, nothing of A's nor the ledger changes", async () => {
      const problems: unknown[] = [];
      let checked = 0;
      let state = await stateOfA();
      for (const route of integratorRoutes().filter((r) => pathParams(r.path).length > 0)) {
        for (const candidate of candidates(route)) {
          const call = callFor(route, B, { pathWorld: A, candidate });
          const response = await send(call, `Bearer ${B.key}`);
          checked++;
          const expected = FOREIGN_PATH[pathParams(route.path)[0]!.segment] ?? NOT_FOUND;
          const found = errorProblems(response, expected.status, expected.code);
          const leaked = leakedIds(call, response);
          if (leaked.length > 0) found.push(`leaked ${leaked.join(', ')}`);
          if (found.length > 0) problems.push({ route: key(route), path: call.path, problems: found });
          if (route.method !== 'GET') {
            const after = await stateOfA();
            expectUnchanged(state, after, `after ${call.method} ${call.path} with B's key`);
            state = after;
          }
        }
      }
      expect(checked).toBeGreaterThan(30);
      expect(problems).toEqual([]);
    });

    it("an id of A's in a body or query parameter: refused as the contract says (or an empty list), no id of A's in the answer, nothing changes", async () => {
      const problems: unknown[] = [];
      let checked = 0;
      let state = await stateOfA();
      for (const route of integratorRoutes()) {
        for (const field of foreignFields(route)) {
          const call = callFor(route, B, { foreign: field });
          const response = await send(call, `Bearer ${B.key}`);
          checked++;
          const expected = FOREIGN_FIELD[`${field.in} ${field.name}`];
          let found: string[];
          if (expected === undefined) found = [`no expectation for an id of A's in the ${field.in} parameter ${field.name}: add it to FOREIGN_FIELD`];
          else if (expected === 'empty list') found = response.status === 200 && response.body?.object === 'list' && response.body.data.length === 0 ? [] : [`expected an empty list, got ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`];
          else found = errorProblems(response, expected.status, expected.code);
          const leaked = leakedIds(call, response);
          if (leaked.length > 0) found.push(`leaked ${leaked.join(', ')}`);
          if (found.length > 0) problems.push({ route: key(route), field, path: call.path, problems: found });
          if (route.method !== 'GET') {
            const after = await stateOfA();
            expectUnchanged(state, after, `after ${call.method} ${call.path} with B's key and A's ${field.name}`);
            state = after;
          }
        }
      }
      expect(checked).toBeGreaterThan(10);
      expect(problems).toEqual([]);
    });

    it("B's own reads (lists, the clock) show nothing of A's, and each list documents its parameters", async () => {
      const problems: unknown[] = [];
      for (const route of integratorRoutes().filter((r) => r.method === 'GET' && pathParams(r.path).length === 0)) {
        const call = callFor(route, B);
        const response = await send(call, `Bearer ${B.key}`);
        const found = response.status === 200 ? [] : [`status ${response.status}`];
        // A list documents its cursor parameters: the foreign-parameter checks above take them from the document.
        const documented = queryParameters(document, route.method, openApiPath(route.path)).map((p) => p.name);
        if (response.body?.object === 'list' && !(documented.includes('limit') && documented.includes('starting_after'))) found.push(`a list whose query parameters are not in /openapi.json: ${documented.join()}`);
        const leaked = leakedIds(call, response);
        if (leaked.length > 0) found.push(`leaked ${leaked.join(', ')}`);
        if (found.length > 0) problems.push({ route: key(route), path: call.path, problems: found });
      }
      expect(problems).toEqual([]);
    });

    it("control: the same requests with B's own ids pass authorization (so the refusals above are for A's ids), and A is still unchanged", async () => {
      const before = await snapshot(service, A);
      const problems: unknown[] = [];
      // Deletions last: they remove what the other controls act on.
      const ordered = [...integratorRoutes()].sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));
      for (const route of ordered) {
        for (const candidate of candidates(route)) {
          const call = callFor(route, B, { candidate });
          const response = await send(call, `Bearer ${B.key}`);
          if ([401, 403, 404].includes(response.status) || response.status >= 500) {
            problems.push({ route: key(route), path: call.path, status: response.status, body: response.body });
          }
        }
      }
      expect(problems).toEqual([]);
      expect(changedPaths(before, await snapshot(service, A))).toEqual([]);
    });
  });
});
