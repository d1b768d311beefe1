import { writeFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { Logger } from '@nestjs/common';
import * as fc from 'fast-check';
import { ERROR_STATUS } from '@pay/contracts';
import { paymentBody, startTestService, type TestService } from './harness';
import { audienceOf, gatewayRoutes, openApiPath, pathParams, type GatewayRoute } from './route-table';
import { bodySchema, changedPaths, createWorld, deliveriesSettled, ownedIds, queryParameters, snapshot, trialBalance, type World } from './world';

/**
 * An HTTP fuzzer over every route of the route table, with fast-check arbitraries for path
 * parameters (real ids, another integrator's ids, hostile strings: NUL, lone surrogates, %ZZ, very
 * long, unicode, path traversal), query parameters, JSON bodies (from each route's schema in the
 * served /openapi.json, then mutated; random JSON, deep nesting, wrong types, __proto__/constructor),
 * headers (Content-Type and charset variants, Content-Encoding, Idempotency-Key garbage, Authorization garbage,
 * trace and forwarding headers), malformed cookies, query values with impossible dates and bad percent-encoding,
 * and a few raw HTTP messages that no client library would send. Real HTTP, 16 requests in flight.
 *
 * Properties: no 5xx; every answer with a Request-Id and X-Content-Type-Options: nosniff; every 4xx in the contract's error shape (section 2), never a
 * framework's own body (`{statusCode, error, message}`, `FST_ERR_…`), except the hosted pages' HTML
 * for browsers; no answer to the fuzzing integrator shows another integrator's ids; and refused
 * requests have no effect: after the run, the fuzzing integrator's objects, its events, the other
 * integrator's objects and the ledger's trial balance are as they were, and the Idempotency-Keys
 * used by refused requests are still free. Every object is in a final state and no body names the
 * integrator's own connections or payments, so a mutating request can be accepted only on the
 * webhook endpoint, an event's redelivery, the sandbox clock or the integrator's keys (ALLOWED_EFFECTS); anything else
 * accepted fails the run.
 *
 * Requests that once broke a property are sent first on every run (the corpus), whatever the seed.
 *
 * The run is seeded: the same seed by default, so that a red run is red again on the same inputs, and
 * `FUZZ_SEED=random` for a new seed (to explore). The seed is printed on failure (`replay` in the
 * report), and `FUZZ_SEED=<seed> npx jest apps/all-in-one/src/e2e/fuzz.e2e.spec.ts` replays the same
 * requests (their order in flight may differ). `FUZZ_REQUESTS` (default 5000) sets how many;
 * `FUZZ_TIME_BUDGET_MS` (default 50 s) bounds the sending, so that the file stays under ~90 s on a
 * slow 2-core machine; `FUZZ_REPORT=<file>` writes the run's report (statuses, accepted requests,
 * failures) to a file.
 */
const DEFAULT_SEED = 20_261_124;
const SEED = ((given) => (given === 'random' ? Math.floor(Math.random() * 2 ** 31) : given ? Number(given) : DEFAULT_SEED))(process.env['FUZZ_SEED']);
const REQUESTS = Number(process.env['FUZZ_REQUESTS'] ?? 5000);
const TIME_BUDGET_MS = Number(process.env['FUZZ_TIME_BUDGET_MS'] ?? 50_000);
const CONCURRENCY = 16;
const REPLAY = `FUZZ_SEED=${SEED} npx jest apps/all-in-one/src/e2e/fuzz.e2e.spec.ts`;

/** The only mutating routes a fuzzed request may get accepted on (see above); their effects are left out of the comparison. */
const ALLOWED_EFFECTS = new Set([
  'POST /v1/webhook_endpoints/:id',
  'POST /v1/webhook_endpoints/:id/rotate_secret',
  'POST /v1/webhook_endpoints/:id/recover',
  'DELETE /v1/webhook_endpoints/:id',
  'POST /v1/events/:id/redeliver',
  'POST /v1/test_helpers/clock/advance',
  // A new key (nothing of the world's objects), or a revocation of the world's key that is revoked already.
  'POST /v1/api_keys',
  'POST /v1/api_keys/:id/revoke',
]);

type Caller = 'own' | 'none' | 'garbage' | 'revoked' | 'finance' | 'admin';

interface FuzzRequest {
  /** The route of the table it was made for (`GET /v1/payments/:id`), or `off-table` / `raw`. */
  route: string;
  method: string;
  /** Sent as is: already percent-encoded (or deliberately not). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  caller: Caller;
  note: string;
  /** A whole HTTP/1.1 message written on a socket, for what no client library sends. */
  raw?: Buffer;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

// --- encoding ------------------------------------------------------------------------------------

/** Percent-encodes every UTF-16 code unit, a lone surrogate as the 3 bytes it would take (WTF-8), which no valid UTF-8 decoder accepts. */
const encodeWtf8 = (value: string): string => {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    const next = value.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(value[i]!);
    }
  }
  return out;
};

/** JSON text of an object given as entries, so that keys such as `__proto__` are written as plain keys. */
const jsonOf = (entries: [string, unknown][]): string => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;

const printable = (value: Buffer | string | undefined, max = 300): string | undefined => {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.toString('latin1');
  return (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text).replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
};

// --- hostile values ------------------------------------------------------------------------------

/** Path segments sent as they are (already encoded, or raw on purpose). */
const RAW_SEGMENTS = [
  '%00', 'pay_%00', 'pay_x%00y', '%ZZ', '%', '%%', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%ED%B0%80', '%F0%9F%98', '%FF%FE',
  '..', '.', '%2e%2e', '%2E%2E%2F..%2F..%2Fadmin%2Fv1%2Fintegrators', '..%2F..%2F..%2Fetc%2Fpasswd', '%2F', '%5C', '%5C..%5C..',
  '~', '*', '%20', '+', '%3B', ';x=1', ',', "'", '"', '%3Cscript%3E', '<script>', '{id}', ':id', '$', '!',
  'constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'NaN', 'null', 'undefined', 'true', '-1', '0', '1e309',
  '\u00e9', 'pay_\u00ff', 'pay_\u00e9t\u00e9', 'a'.repeat(101), 'a'.repeat(256), `pay_${'a'.repeat(251)}`, `pay_${'a'.repeat(252)}`, 'a'.repeat(4000),
  'platform:fees:DZD', 'platform:cash:XXX', 'cp_x:DZD', 'swagger-ui.css', 'init.js', '..%2Fpackage.json', '%2e%2e%2fpackage.json',
];

/** Strings that percent-encode to hostile path or query values. */
const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom('\u0000', 'a\u0000b', '\ud800', '\udc00', 'x\ud800y', '\udbff\udfff', '\ufeff', '\u202e', '😀', 'ǅ', 'é', 'ß', 'İ', '\u2028', ' ', '\t', '\n', '\r\n', '', '../..', '/', '\\', '?', '#', '&', '='),
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.string({ unit: 'grapheme', maxLength: 16 }),
    fc.string({ maxLength: 16 }),
    fc.integer({ min: 256, max: 3000 }).map((n) => 'x'.repeat(n)),
    fc.tuple(fc.constantFrom('pay_', 'cpay_', 'spay_', 'col_', 'we_', 'evt_', 're_', 'txn_', 'conn_', 'ben_', 'cus_', 'key_', 'int_', 'cp_'), fc.string({ unit: 'binary', maxLength: 12 })).map(([p, s]) => p + s),
  );

const base62 = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.split(''));
/** A well-formed id of a kind that does not exist. */
const unknownId = (prefix: string) => fc.string({ unit: base62, minLength: 20, maxLength: 24 }).map((s) => `${prefix}_${s}`);
const PREFIX_BY_SEGMENT: Record<string, string> = {
  payments: 'pay', cash_payments: 'cpay', supplier_payments: 'spay', collections: 'col', beneficiaries: 'ben', webhook_endpoints: 'we', events: 'evt',
  refunds: 're', balance_transactions: 'txn', integrators: 'int', api_keys: 'key', balances: 'conn', accounts: 'conn',
};

/** Header values Node lets a client send: tab and the printable Latin-1 range. */
const headerValue = (maxLength = 60) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength });

const ISO_VALUES = ['2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00+01:00', '2026-02-30T00:00:00Z', '2026-04-31T00:00:00Z', '2025-02-29T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T10:60:00Z', '2026-13-01T00:00:00Z', '2026-11-22', '2026-11-22T25:00:00Z', 'now', '0', '-1', '99999-01-01T00:00:00Z', '2026-11-22T10:00:00.0000000001Z', '1970-01-01T00:00:00Z'];
const LIMIT_VALUES = ['1', '10', '100', '0', '101', '-1', '1e1', '10.5', ' 10', '0x10', '007', 'NaN', '1000', '1001', '99999999999999999999', ''];
const STATUS_VALUES = ['pending', 'succeeded', 'declined', 'canceled', 'expired', 'awaiting_payment', 'awaiting_approval', 'rejected', 'settled', 'failed', 'SUCCEEDED', 'payment.succeeded', 'refund.failed', '*'];
/** Names no document lists; `error` and `lang` are read by the hosted pages (`?error=sign_in`, `?lang=ar`), which are not in /openapi.json. */
const EXTRA_QUERY_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'limit[]', 'status[0]', 'a[b]', 'a.b', '', 'x'.repeat(300), 'évènement', 'unknown', 'error', 'lang'];
/** Values that name a member of every plain object. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'prototype'];

describe('HTTP fuzzing of every route', () => {
  const routes = gatewayRoutes();
  let service: TestService;
  let F: World; // the fuzzing integrator: its key, its objects (all in final states)
  let O: World; // another integrator: its ids only, never its key
  let financeKey: string;
  let document: any;
  let idsOfO: string[];
  let cashPoint: string;

  beforeAll(async () => {
    service = await startTestService();
    const point = await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Point Fuzz', address: '2 rue Larbi Ben Mhidi, Alger' } });
    expect(point.status).toBe(201);
    cashPoint = point.body.id;
    F = await createWorld(service, { cashPoint, open: false });
    O = await createWorld(service, { cashPoint, open: false });
    financeKey = (await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Fuzz' } })).body.api_key;
    document = (await service.http('GET', '/openapi.json')).body;
    idsOfO = await ownedIds(service, O);
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await Promise.all([F?.receiver.stop(), O?.receiver.stop()]);
  });

  // --- arbitraries over the route table ----------------------------------------------------------

  const idFor = (segment: string): fc.Arbitrary<string> => {
    const prefix = PREFIX_BY_SEGMENT[segment] ?? 'x';
    return fc.oneof(
      { weight: 35, arbitrary: fc.constantFrom(...(F.ids[segment] ?? ['swagger-ui.css'])) },
      { weight: 10, arbitrary: fc.constantFrom(...(O.ids[segment] ?? ['swagger-ui-bundle.js'])) },
      { weight: 10, arbitrary: unknownId(prefix) },
      { weight: 5, arbitrary: fc.constantFrom(...Object.values(PREFIX_BY_SEGMENT)).chain(unknownId) },
      { weight: 20, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
      { weight: 20, arbitrary: hostileString().map(encodeWtf8) },
    );
  };

  /** Ids for body and query parameters: another integrator's, unknown ones, hostile strings; the integrator's own only where asked. */
  const idValue = (name: string, { own: withOwn }: { own: boolean }): fc.Arbitrary<string> => {
    const own = (world: World): string | undefined => (Object.hasOwn(world.fields, name) ? world.fields[name] : undefined);
    const mine = own(F) ?? (name === 'customer' ? F.customer : name === 'cash_point' ? cashPoint : undefined);
    const theirs = own(O);
    return fc.oneof(
      ...(withOwn && mine ? [{ weight: 3, arbitrary: fc.constant(mine) }] : []),
      ...(theirs ? [{ weight: 3, arbitrary: fc.constant(theirs) }] : []),
      { weight: 3, arbitrary: fc.constantFrom('pay', 'cpay', 'conn', 'ben', 'cus', 'cp', 're', 'evt').chain(unknownId) },
      { weight: 3, arbitrary: hostileString() },
    );
  };

  const ID_FIELDS = new Set(['merchant_connection', 'payer_connection', 'beneficiary', 'beneficiary_connection', 'payment', 'customer', 'cash_point', 'connection', 'integrator', 'business', 'account', 'owner']);

  /** A value of a JSON Schema property: mostly valid, sometimes just off. */
  const valueFor = (name: string, schema: any): fc.Arbitrary<unknown> => {
    // A body never names the integrator's own connections or payments: a create or refund could then be accepted.
    if (ID_FIELDS.has(name)) return idValue(name, { own: name === 'customer' || name === 'cash_point' });
    if (name === 'url') {
      // Never a URL that would be accepted (in sandbox, any loopback one), nor one that needs DNS.
      return fc.constantFrom('https://10.0.0.1/hooks', 'https://0x0a000001/hooks', 'https://[fe80::1]/hooks', 'https://[::ffff:10.0.0.1]/', 'https://0.0.0.0/', 'https://169.254.169.254/latest/meta-data', 'http://example.com/hooks', 'http://10.0.0.1/hooks', 'ftp://x/y', 'javascript:alert(1)', 'https://', 'https://user:pass@10.1.2.3/', '', 'hooks', 'https://192.168.1.1:8443/hooks');
    }
    if (Array.isArray(schema?.enum)) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });
    if (Array.isArray(schema?.oneOf) || schema?.format === 'date-time') return fc.constantFrom(...ISO_VALUES, new Date(Date.now() - 3_600_000).toISOString());
    switch (schema?.type) {
      case 'integer':
      case 'number':
        return fc.oneof(
          { weight: 4, arbitrary: fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 1e9, 1e9) }) },
          { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, -0, 1e308, 2 ** 53, 100_000_000_001, Number.MAX_SAFE_INTEGER + 2) },
        );
      case 'array':
        return fc.array(schema.items ? valueFor(`${name}[]`, schema.items) : fc.string(), { maxLength: 4 });
      case 'boolean':
        return fc.boolean();
      default:
        return fc.oneof(
          { weight: 4, arbitrary: fc.string({ minLength: schema?.minLength ?? 1, maxLength: 24 }) },
          { weight: 1, arbitrary: hostileString() },
          { weight: 1, arbitrary: fc.constantFrom('https://shop.example/return', 'x'.repeat(256), 'x'.repeat(1001), '1234', '+213555000111') },
        );
    }
  };

  const wrongType = (): fc.Arbitrary<unknown> =>
    fc.oneof(
      fc.constantFrom(null, true, false, 0, -1, 1.5, '', '1', '100000', [], {}, [null], { $gt: '' }, -0, 1e308, '\u0000', 'DZD\u0000'),
      fc.jsonValue({ maxDepth: 2 }),
    );

  const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__', 'unknown', '', ' amount', 'AMOUNT', 'amount\u0000', '\ud800'];

  /** A body from the route's schema: valid-looking entries, then (often) one mutation. */
  const schemaEntries = (schema: any): fc.Arbitrary<[string, unknown][]> => {
    const properties = Object.entries(schema.properties ?? {}) as [string, any][];
    const required = new Set<string>(schema.required ?? []);
    if (properties.length === 0) return fc.constant([]);
    return fc
      .tuple(...properties.map(([name, property]) => fc.tuple(fc.constant(name), valueFor(name, property), fc.boolean())))
      .map((items) => items.filter(([name, , keep]) => required.has(name) || keep).map(([name, value]) => [name, value] as [string, unknown]));
  };

  const mutated = (entries: fc.Arbitrary<[string, unknown][]>): fc.Arbitrary<[string, unknown][]> =>
    entries.chain((valid) =>
      fc.oneof(
        fc.constant(valid),
        valid.length === 0 ? fc.constant(valid) : fc.nat(valid.length - 1).map((i) => valid.filter((_e, j) => j !== i)),
        valid.length === 0 ? fc.constant(valid) : fc.tuple(fc.nat(valid.length - 1), wrongType()).map(([i, v]) => valid.map((e, j) => (j === i ? ([e[0], v] as [string, unknown]) : e))),
        valid.length === 0 ? fc.constant(valid) : fc.tuple(fc.nat(valid.length - 1), hostileString()).map(([i, v]) => valid.map((e, j) => (j === i ? ([e[0], v] as [string, unknown]) : e))),
        fc.tuple(fc.constantFrom(...PROTO_KEYS), fc.oneof(wrongType(), fc.constant({ polluted: true }))).map((extra) => [...valid, extra]),
        valid.length === 0 ? fc.constant(valid) : fc.nat(valid.length - 1).map((i) => [...valid, valid[i]!]), // a duplicate key
      ),
    );

  const nested = (depth: number, open: string, close: string) => open.repeat(depth) + close.repeat(depth);

  interface Body {
    bytes?: Buffer;
    /** undefined: application/json when there is a body. null: no Content-Type header. */
    contentType?: string | null;
    note: string;
  }

  const json = (text: string, note: string): Body => ({ bytes: Buffer.from(text, 'utf8'), note });

  const otherBodies = (): fc.Arbitrary<Body> =>
    fc.oneof(
      { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => json(JSON.stringify(v), 'random JSON')) },
      { weight: 3, arbitrary: fc.constantFrom(62, 63, 64, 65, 66, 70, 1000, 20_000).chain((d) => fc.constantFrom(nested(d, '[', ']'), `{"amount":${nested(d, '[', ']')}}`, `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`).map((t) => json(t, `nested ${d}`))) },
      {
        weight: 3,
        arbitrary: fc
          .constantFrom(
            '{"__proto__":{"polluted":true}}',
            '{"constructor":{"prototype":{"polluted":true}}}',
            '{"amount":1,"__proto__":{"amount":2}}',
            '{"a":{"__proto__":{"b":1}}}',
            '[{"__proto__":{}}]',
            '{"\\u005f\\u005fproto__":{"polluted":true}}',
            '{"toString":"x"}',
            '{"hasOwnProperty":1}',
          )
          .map((t) => json(t, 'prototype keys')),
      },
      {
        weight: 4,
        arbitrary: fc
          .constantFrom('', ' ', 'null', 'true', '1', '"x"', '[]', '{}', '{', '{"a":', '{"a":1,}', "{'a':1}", '{"a":NaN}', '{"a":1e999}', '\ufeff{}', '{"a":"\\u0000"}', '{"a":"\\ud800"}', '{"\\u0000":1}', '{"a":"\\x"}', '//', 'a=1&b=2', '<xml/>')
          .map((t) => json(t, 'odd JSON text')),
      },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }).map((t) => json(t, 'random text')) },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom(Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), Buffer.concat([Buffer.from('{"order_reference":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d]), Buffer.alloc(64))
          .map((bytes) => ({ bytes, note: 'invalid UTF-8' })),
      },
    );

  /** Over 1 MB: rare, they are big. */
  const hugeBody = fc.constantFrom(1_048_577, 1_200_000).map((n) => json(`{"description":"${'a'.repeat(n)}"}`, `${n} bytes`));

  const bodyFor = (route: GatewayRoute, method: string): fc.Arbitrary<Body> => {
    const schema = bodySchema(document, route.method, openApiPath(route.path));
    if (audienceOf(route) === 'hosted' && method === 'POST') {
      const form = fc
        .array(fc.tuple(fc.constantFrom('csrf', 'phone', 'pin', 'login', 'password', 'reference', 'collection', 'code', 'amount', '__proto__', 'constructor'), fc.oneof(fc.string({ maxLength: 50 }), hostileString())), { maxLength: 6 })
        .map((pairs) => ({ bytes: Buffer.from(pairs.map(([k, v]) => `${encodeWtf8(k)}=${encodeWtf8(v)}`).join('&')), contentType: 'application/x-www-form-urlencoded', note: 'form' }) as Body);
      return fc.oneof({ weight: 6, arbitrary: form }, { weight: 2, arbitrary: otherBodies() }, { weight: 1, arbitrary: fc.constant<Body>({ note: 'no body' }) });
    }
    if (schema) {
      const entries = schemaEntries(schema);
      return fc.oneof(
        { weight: 50, arbitrary: entries.map((e) => json(jsonOf(e), 'from the schema')) },
        { weight: 100, arbitrary: mutated(entries).map((e) => json(jsonOf(e), 'from the schema, mutated')) },
        { weight: 50, arbitrary: otherBodies() },
        { weight: 10, arbitrary: fc.constant<Body>({ note: 'no body' }) },
        { weight: 1, arbitrary: hugeBody },
      );
    }
    if (method === 'GET' || method === 'HEAD') return fc.oneof({ weight: 12, arbitrary: fc.constant<Body>({ note: 'no body' }) }, { weight: 1, arbitrary: otherBodies() });
    return fc.oneof(
      { weight: 60, arbitrary: fc.constant<Body>({ note: 'no body' }) },
      { weight: 20, arbitrary: fc.constant(json('{}', 'empty object')) },
      { weight: 40, arbitrary: otherBodies() },
      { weight: 20, arbitrary: fc.tuple(fc.constantFrom(...PROTO_KEYS), wrongType()).map((e) => json(jsonOf([e]), 'one unknown parameter')) },
      { weight: 1, arbitrary: hugeBody },
    );
  };

  const contentType = (): fc.Arbitrary<string | null | undefined> =>
    fc.oneof(
      { weight: 14, arbitrary: fc.constant(undefined) },
      {
        weight: 6,
        arbitrary: fc.constantFrom<string | null>(
          null,
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'application/json;charset=latin1',
          'application/json; charset=utf-16',
          'text/plain',
          'text/json',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/vnd.api+json',
          'application/json, text/plain',
          'application/jsonx',
          'application/json; boundary=;;;',
          'application/json;',
          '',
          '*/*',
          'application/*',
          'application/json\u00e9',
          'application/octet-stream',
        ),
      },
      { weight: 1, arbitrary: headerValue(40) },
    );

  const auth = (method: string): fc.Arbitrary<{ caller: Caller; header?: string }> => {
    const reads = method === 'GET' || method === 'HEAD';
    return fc.oneof(
      { weight: 60, arbitrary: fc.constant({ caller: 'own' as Caller, header: `Bearer ${F.key}` }) },
      { weight: 6, arbitrary: fc.constant({ caller: 'none' as Caller }) },
      {
        weight: 8,
        arbitrary: fc
          .oneof(
            fc.constantFrom('Bearer', 'Bearer ', 'Basic Zm9vOmJhcg==', `bearer ${F.key}`, `Bearer  ${F.key}`, `Bearer ${F.key}x`, `Bearer ${F.key.slice(0, -1)}`, 'Bearer sk_', 'Bearer fk_', `Bearer sk_${'a'.repeat(300)}`, `Bearer ${service.adminKey}x`, 'Bearer \u00ff\u00fe', 'Bearer sk_%00', 'Bearer __proto__', 'Bearer constructor', `Bearer ${F.key},Bearer ${F.key}`, `Token ${F.key}`),
            headerValue().map((v) => `Bearer ${v}`),
            headerValue(),
          )
          .map((header) => ({ caller: 'garbage' as Caller, header })),
      },
      { weight: 4, arbitrary: fc.constant({ caller: 'revoked' as Caller, header: `Bearer ${F.revokedKey}` }) },
      { weight: 6, arbitrary: fc.constant({ caller: 'finance' as Caller, header: `Bearer ${financeKey}` }) },
      // The admin key only reads: an admin write on a real id (revoking the fuzzing key) would end the run's meaning.
      ...(reads ? [{ weight: 8, arbitrary: fc.constant({ caller: 'admin' as Caller, header: `Bearer ${service.adminKey}` }) }] : []),
    );
  };

  const IDEMPOTENCY_POOL = ['fuzz-pool-1', 'fuzz-pool-2', 'fuzz-pool-3', 'fuzz-pool-4'];
  const idempotency = fc.oneof(
    { weight: 10, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.string({ unit: base62, minLength: 8, maxLength: 30 }).map((s) => `fuzz-${s}`) },
    { weight: 3, arbitrary: fc.constantFrom(...IDEMPOTENCY_POOL) },
    { weight: 4, arbitrary: fc.oneof(fc.constantFrom('', ' ', 'null', '\u00e9\u00e8', 'a'.repeat(255), 'a'.repeat(256), 'a'.repeat(2000), '__proto__'), headerValue(300)) },
  );

  /** Headers beside the usual ones: encodings and charsets the API does not read, hostile trace and id headers. */
  const extraHeaders = fc.oneof(
    { weight: 12, arbitrary: fc.constant({} as Record<string, string>) },
    {
      weight: 3,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.constantFrom('Content-Encoding', 'traceparent', 'tracestate', 'Request-Id', 'Accept-Language', 'Accept-Charset', 'If-None-Match', 'X-Forwarded-For', 'Forwarded', 'X-Idempotency-Key', 'Origin'),
            fc.oneof(
              fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'gzip, identity', 'x-unknown', '', '00-00000000000000000000000000000000-0000000000000000-01', 'ar;q=abc, fr;q=2', '*, *;q=0', 'null', '127.0.0.1, 10.0.0.1', 'for="[::1]"'),
              headerValue(120),
            ),
          ),
          { minLength: 1, maxLength: 3 },
        )
        .map((pairs) => Object.fromEntries(pairs)),
    },
  );

  const cookie = fc.oneof(
    { weight: 7, arbitrary: fc.constant(undefined) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constantFrom('pay_session=%ZZ', 'pay_csrf=%E0%A4%A', '=', ';;;', '=;=;', 'pay_session=', `pay_session=${'a'.repeat(5000)}`, 'pay_session="unterminated', 'pay_csrf=x; pay_csrf=y', 'pay_session=\u00ff\u00fe', '__proto__=1', 'constructor=x; toString=y', 'pay_csrf=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
        headerValue(80),
        fc.array(fc.tuple(fc.constantFrom('pay_session', 'pay_csrf', 'x', ''), headerValue(40).map((v) => v.replace(/;/g, ''))), { maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('; ')),
      ),
    },
  );

  const queryValue = (name: string, listSegment: string): fc.Arbitrary<string> => {
    const encoded = (arb: fc.Arbitrary<string>) => arb.map(encodeWtf8);
    const plausible: fc.Arbitrary<string> =
      name === 'limit'
        ? fc.constantFrom(...LIMIT_VALUES)
        : name === 'starting_after'
          ? fc.constantFrom(...(F.ids[listSegment] ?? ['pay_x']), ...(O.ids[listSegment] ?? ['pay_y']), 'platform:fees:DZD', 'pay_x')
          : /^(created_|from|to|as_of)/.test(name)
            ? fc.constantFrom(...ISO_VALUES, new Date().toISOString())
            : name === 'status' || name === 'type' || name === 'kind'
              ? fc.constantFrom(...STATUS_VALUES, 'connection', 'platform_fees', 'cashier')
              : name === 'currency'
                ? fc.constantFrom('DZD', 'MAD', 'dzd', 'EUR', '')
                : name === 'lang'
                  ? fc.constantFrom('fr', 'ar', 'en', 'AR', 'de', 'ar-DZ', '')
                  : // Query ids: reads only, so the integrator's own ids are fine here.
                    fc.oneof(idValue(name, { own: true }), fc.constantFrom(F.integrator.merchant, F.business, cashPoint, 'platform:fees:DZD'));
    return fc.oneof(
      { weight: 6, arbitrary: encoded(plausible) },
      { weight: 3, arbitrary: encoded(hostileString()) },
      { weight: 1, arbitrary: fc.constantFrom('%00', '%ZZ', '%', '%ED%A0%80', 'a%00b', '%C0%AF', '+', '%2B', 'a&b', '\u00e9', '%FF', '%E2%82', '%E2%82%', 'caf%C3', '%%', '%G0') },
      { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
    );
  };

  const query = (route: GatewayRoute): fc.Arbitrary<string> => {
    const names = [...queryParameters(document, route.method, openApiPath(route.path)).map((p) => p.name), ...(audienceOf(route) === 'hosted' ? ['error', 'lang'] : [])];
    const listSegment = route.path.split('/').filter((s) => s && !s.startsWith(':')).pop() ?? '';
    const extra = fc.constantFrom(...EXTRA_QUERY_NAMES);
    const name = names.length > 0 ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: extra }) : extra;
    const pairs = fc.array(name.chain((n) => queryValue(n, listSegment).map((v) => `${encodeWtf8(n)}=${v}`)), { maxLength: 5 });
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant('') },
      { weight: 8, arbitrary: pairs.map((p) => (p.length > 0 ? `?${p.join('&')}` : '')) },
      { weight: 1, arbitrary: fc.constantFrom('?', '?&&&', '?=', '?%ZZ', '?a=%', '?limit=1&limit=2', `?limit=${'9'.repeat(400)}`, `?${'a=1&'.repeat(500)}`, '?__proto__[x]=1', '?constructor=1', '?%00=1', '?#frag') },
    );
  };

  /** Small damage to a path's shape: case, slashes, dot segments, a suffix. */
  const pathShape = fc.oneof(
    { weight: 20, arbitrary: fc.constant((p: string) => p) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        (p: string) => `${p}/`,
        (p: string) => p.replace(/\//g, '//'),
        (p: string) => p.replace(/[a-z]/g, (c) => c.toUpperCase()),
        (p: string) => `${p}/..`,
        (p: string) => `${p}/%2e%2e/%2e%2e/admin/v1/integrators`,
        (p: string) => `/./${p.slice(1)}`,
        (p: string) => `${p};jsessionid=1`,
        (p: string) => `${p}/extra`,
        (p: string) => p.replace('/v1/', '/v1/./'),
        (p: string) => p.replace(/^\/(v1|admin|hosted)/, '/$1/x/..'),
      ),
    },
  );

  /**
   * A HEAD request line the server cannot parse gets an answer with a body, which a client reading
   * the answer to a HEAD takes for garbage: raw Latin-1 bytes go percent-encoded on HEAD requests.
   */
  const headSafe = (method: string, path: string) => (method === 'HEAD' ? path.replace(/[\x80-\xff]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`) : path);

  const routeRequest = (route: GatewayRoute): fc.Arbitrary<FuzzRequest> =>
    fc
      .oneof({ weight: 19, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') })
      .chain((method) =>
        fc.record({
          params: fc.tuple(...pathParams(route.path).map((p) => idFor(p.segment))),
          shape: pathShape,
          query: query(route),
          auth: auth(method),
          idempotencyKey: idempotency,
          cookie,
          accept: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('text/csv', '*/*', 'text/html', 'application/xml', 'text/csv;q=0, */*', '\u00e9') }),
          body: bodyFor(route, method),
          contentType: contentType(),
          extra: extraHeaders,
        }).map(({ params, shape, query: search, auth: { caller, header }, idempotencyKey: key, cookie: cookieHeader, accept, body, contentType: type, extra }) => {
          let i = 0;
          const path = headSafe(method, shape(route.path.replace(/:[A-Za-z_]+/g, () => params[i++]!)) + search);
          const headers: Record<string, string> = { ...extra };
          if (header !== undefined) headers['Authorization'] = header;
          if (key !== undefined) headers['Idempotency-Key'] = key;
          if (cookieHeader !== undefined) headers['Cookie'] = cookieHeader;
          if (accept !== undefined) headers['Accept'] = accept;
          const chosenType = body.contentType !== undefined ? body.contentType : type !== undefined ? type : 'application/json';
          if (body.bytes !== undefined && chosenType !== null) headers['Content-Type'] = chosenType;
          return { route: `${route.method} ${route.path}`, method, path, headers, body: body.bytes, caller, note: body.note } satisfies FuzzRequest;
        }),
      );

  /** Paths that are no route of the table. */
  const offTable = (): fc.Arbitrary<FuzzRequest> =>
    fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'),
      path: fc.oneof(
        fc.constantFrom(
          '/', '/v1', '/v1/', '/v2/payments', '/admin', '/admin/v1', '/hosted', '/hosted/', '/docs/', '/docs/assets/', '/openapi.json/',
          '//v1//payments', '/v1/%2e%2e/admin/v1/integrators', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2fetc%2fpasswd', '/v1/payments/..',
          '/V1/PAYMENTS', '/health', '/ready', '/health/', '/docs/assets/..%2f..%2fpackage.json', '/docs/assets/%2e%2e%2fpackage.json',
          '/docs/assets/../../package.json', '/hosted/agent/../../admin/v1/integrators', '/favicon.ico', '/.env', '/.git/config',
          '/v1/test_helpers', '/v1/test_helpers/', '/v1/test_helpers/payments', '/admin/v1/ledger', '/%', '/%ZZ', '/%00', '/\u00e9',
          `/${'a'.repeat(5000)}`, '/v1/payments?%ZZ', '/*', '/v1/payments/*',
        ),
        fc.array(fc.oneof(fc.constantFrom(...RAW_SEGMENTS), hostileString().map(encodeWtf8), fc.constantFrom('v1', 'admin', 'hosted', 'payments', 'docs')), { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
      ),
      auth: auth('GET'),
    })
    .map(({ method, path, auth: { caller, header } }): FuzzRequest => ({ route: 'off-table', method, path: headSafe(method, path), headers: header ? { Authorization: header } : {}, caller, note: 'off the route table' }));

  /** HTTP/1.1 messages no client library sends: the server's parser refuses them before any route. */
  const rawRequest: fc.Arbitrary<FuzzRequest> = fc
    .constantFrom(
      'GET /v1/pay ments HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/payments\x01 HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/payments HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
      'GET /v1/payments HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n',
      'POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      'POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      'GET /v1/payments HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n',
      'GET /v1/payments HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  folded\r\n\r\n',
      'GET /v1/payments HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /v1/payments\r\n\r\n',
      'get /v1/payments HTTP/1.1\r\nHost: x\r\n\r\n',
      'FOO /v1/payments HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /v1/payments HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
      `GET /v1/payments HTTP/1.1\r\nHost: x\r\nCookie: pay_session=${'a'.repeat(20_000)}\r\n\r\n`,
      `GET /v1/payments/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      'GET http://evil.example/v1/payments HTTP/1.1\r\nHost: evil.example\r\n\r\n',
      'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
      'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/payments HTTP/1.1\r\n\r\n',
      'GET /v1/payments HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n',
      'GET /v1/payments HTTP/1.1\nHost: x\n\n',
      'GET /v1/payments HTTP/1.1\rHost: x\r\r',
      'GET /v1/\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x7f\r\n\r\n',
      'POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n{',
    )
    .map((text) => ({ route: 'raw', method: text.split(' ')[0]!, path: printable(text.split('\r\n')[0], 80)!, headers: {}, caller: 'none' as Caller, note: 'raw HTTP', raw: Buffer.from(text, 'latin1') }) satisfies FuzzRequest);

  // --- sending -----------------------------------------------------------------------------------

  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

  const send = (request: FuzzRequest): Promise<Answer> => {
    const url = new URL(service.url);
    if (request.raw) return sendRaw(url, request.raw);
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: request.method,
          path: request.path,
          // Framed by its length: Node would send a GET's body unframed (and the server read it as the next request).
          headers: request.body === undefined ? request.headers : { ...request.headers, 'Content-Length': String(request.body.length) },
          agent,
          timeout: 30_000,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
          response.on('error', reject);
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('no answer in 30 s')));
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  };

  /** One message on its own connection; the answer is read until the server closes it. */
  const sendRaw = (url: URL, message: Buffer): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => socket.destroy(new Error('no answer in 10 s')), 10_000);
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', (error) => (chunks.length > 0 ? undefined : (clearTimeout(timer), reject(error))));
      socket.on('close', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('latin1');
        const match = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(text);
        if (!match) return reject(new Error(`no HTTP answer: ${printable(text, 200) || '(connection closed)'}`));
        const headers: IncomingHttpHeaders = {};
        for (const line of match[2]!.split('\r\n')) {
          const at = line.indexOf(':');
          if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
        }
        let body = match[3]!;
        if (/chunked/i.test(String(headers['transfer-encoding'] ?? ''))) {
          let decoded = '';
          for (let rest = body; ; ) {
            const size = parseInt(rest, 16);
            if (!(size > 0)) break;
            const start = rest.indexOf('\r\n') + 2;
            decoded += rest.slice(start, start + size);
            rest = rest.slice(start + size + 2);
          }
          body = decoded;
        }
        resolve({ status: Number(match[1]), headers, body: Buffer.from(body, 'latin1') });
      });
      socket.on('connect', () => {
        socket.write(message);
        // Our side is done; a server waiting for more of a broken message sees the end.
        socket.end();
      });
    });

  // --- properties --------------------------------------------------------------------------------

  const isHosted = (request: FuzzRequest) => /^\/(hosted|console)(\/|$)/.test(request.path.split('?')[0]!);

  /** What is wrong with one answer, if anything. */
  const problemsOf = (request: FuzzRequest, answer: Answer): string[] => {
    const problems: string[] = [];
    const text = answer.body.toString('utf8');
    if (answer.status >= 500) problems.push(`${answer.status}: ${printable(text, 200)}`);
    if (/FST_ERR|"statusCode"\s*:/.test(text)) problems.push(`a framework's error body: ${printable(text, 200)}`);
    if (!/^req_/.test(String(answer.headers['request-id'] ?? ''))) problems.push('no Request-Id');
    if (answer.headers['x-content-type-options'] !== 'nosniff') problems.push('no X-Content-Type-Options: nosniff');
    if (answer.status >= 400 && request.method !== 'HEAD') {
      const type = String(answer.headers['content-type'] ?? '');
      if (isHosted(request) && type.startsWith('text/html')) return problems; // a hosted page's refusal, for a browser
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        return [...problems, `a ${answer.status} that is not JSON (${type}): ${printable(text, 120)}`];
      }
      const error = body?.error;
      const shapeOk =
        body !== null &&
        typeof body === 'object' &&
        Object.keys(body).join() === 'error' &&
        typeof error === 'object' &&
        error !== null &&
        typeof error.code === 'string' &&
        typeof error.message === 'string' &&
        Object.keys(error).every((k) => ['code', 'message', 'param'].includes(k)) &&
        (error.param === undefined || typeof error.param === 'string');
      if (!shapeOk) problems.push(`not the contract's error shape: ${printable(text, 200)}`);
      else if (!(error.code in ERROR_STATUS)) problems.push(`unknown code ${error.code}`);
      else if (ERROR_STATUS[error.code as keyof typeof ERROR_STATUS] !== answer.status && !(error.code === 'invalid_request' && [413, 415, 431].includes(answer.status))) {
        problems.push(`${answer.status} with code ${error.code}`);
      }
      if (!type.startsWith('application/json')) problems.push(`error content-type ${type}`);
    }
    if (request.caller !== 'admin' && request.caller !== 'finance') {
      const sent = `${request.path} ${request.body?.toString('utf8') ?? ''}`;
      const leaked = idsOfO.filter((id) => text.includes(id) && !sent.includes(id));
      if (leaked.length > 0) problems.push(`another integrator's ids in the answer: ${leaked.join(', ')}`);
    }
    return problems;
  };

  /**
   * Requests that once broke a property (each found by this fuzzer), sent first on every run whatever
   * the seed: the regression tests of their fixes.
   */
  const corpus = (): FuzzRequest[] => {
    const own = { Authorization: `Bearer ${F.key}` };
    const request = (method: string, path: string, extra: Partial<FuzzRequest> = {}): FuzzRequest => ({ route: 'corpus', method, path, headers: {}, caller: 'none', note: 'corpus', ...extra });
    const raw = (text: string) => request(text.split(' ')[0]!, printable(text.split('\r\n')[0], 80)!, { raw: Buffer.from(text, 'latin1') });
    return [
      // 500: an asset named like an Object.prototype member.
      request('GET', '/docs/assets/__proto__'),
      request('GET', '/docs/assets/constructor'),
      // 500: a hosted page's `?error=` naming an Object.prototype member.
      request('GET', `/hosted/payments/${F.ids['payments']![0]}?error=constructor`),
      request('GET', `/hosted/supplier_payments/${F.ids['supplier_payments']![0]}?error=__defineGetter__`),
      request('GET', '/hosted/agent?error=__proto__'),
      // 500: a sign-in CSRF cookie and form token of the same length in characters, not in bytes.
      request('POST', `/hosted/supplier_payments/${F.ids['supplier_payments']![0]}/sign-in`, {
        headers: { Cookie: 'pay_csrf=\u00e9\u00e9', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: Buffer.from('csrf=ab&login=someone&password=0123456789'),
      }),
      request('POST', `/hosted/payments/${F.ids['payments']![0]}/sign-in`, {
        headers: { Cookie: 'pay_csrf=x\u00ff', 'Content-Type': 'application/x-www-form-urlencoded' },
        body: Buffer.from('csrf=xy&phone=%2B213555000111&pin=1234'),
      }),
      // Fastify's own {statusCode, error, message}, no Request-Id: what Node's HTTP parser refuses.
      raw('GET /v1/pay ments HTTP/1.1\r\nHost: x\r\n\r\n'),
      raw(`GET /v1/payments HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`),
      request('GET', `/v1/payments/pay_\u00e9t\u00e9`, { headers: own }),
      // An internal error logged ("Error: aborted"): a chunked body Node's parser refuses midway.
      raw('POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'),
      // Node's empty 400: an HTTP/1.1 request without Host.
      raw('GET /v1/payments HTTP/1.1\r\n\r\n'),
      // No Request-Id: Fastify's fallback 404 (a method no route has, on a path it cannot decode).
      request('OPTIONS', '/%ZZ'),
      request('PUT', '/v1/payments/%ZZ', { headers: own }),
    ];
  };

  it(`${REQUESTS} fuzzed requests: no 5xx, every refusal in the error shape, no leak, and refused requests change nothing (replay: FUZZ_SEED)`, async () => {
    const arbitrary: fc.Arbitrary<FuzzRequest> = fc.oneof(
      { weight: 92, arbitrary: fc.constantFrom(...routes).chain(routeRequest) },
      { weight: 5, arbitrary: offTable() },
      { weight: 3, arbitrary: rawRequest },
    );
    const requests = [...corpus(), ...fc.sample(arbitrary, { seed: SEED, numRuns: REQUESTS })];

    await deliveriesSettled(service, F);
    const before = { F: await snapshot(service, F), O: await snapshot(service, O), ledger: await trialBalance(service) };
    // An internal error the service logs is a 5xx even when its answer cannot be delivered (the client's connection is gone).
    const loggedErrors: string[] = [];
    const logSpy = jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void loggedErrors.push(printable(String(message), 200)!));

    const failures: unknown[] = [];
    const accepted: { route: string; method: string; path: string; status: number }[] = [];
    const statuses: Record<string, number> = {};
    const started = Date.now();
    let next = 0;
    let sent = 0;
    const worker = async () => {
      while (next < requests.length && Date.now() - started < TIME_BUDGET_MS) {
        const index = next++;
        const request = requests[index]!;
        let answer: Answer;
        try {
          answer = await send(request);
        } catch (error) {
          failures.push({ index, request: summary(request), problems: [`no answer: ${(error as Error).message}`] });
          continue;
        }
        sent++;
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        const problems = problemsOf(request, answer);
        // A page's form refused answers as browsers expect it: back to the form, the refusal in `?error=`.
        const refusedToForm = isHosted(request) && answer.status === 303 && /[?&]error=/.test(String(answer.headers.location ?? ''));
        if (answer.status < 400 && !refusedToForm && !['GET', 'HEAD', 'OPTIONS'].includes(request.method)) {
          // The route the request reached: its own method on the path of the route it was made for.
          const reached = `${request.method} ${request.route.split(' ')[1] ?? request.path}`;
          accepted.push({ route: reached, method: request.method, path: request.path, status: answer.status });
          if (!ALLOWED_EFFECTS.has(reached)) problems.push(`a mutating request was accepted (${answer.status}): only ${[...ALLOWED_EFFECTS].join(', ')} may be`);
        }
        if (problems.length > 0) failures.push({ index, request: summary(request), status: answer.status, problems });
      }
    };
    const summary = (r: FuzzRequest) => ({ route: r.route, method: r.method, path: printable(r.path, 200), headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, printable(v, 120)])), body: printable(r.body ?? r.raw), note: r.note });
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const elapsed = Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 200)); // the last aborted requests' handlers
    logSpy.mockRestore();
    if (sent < REQUESTS) console.warn(`fuzz: the time budget (${TIME_BUDGET_MS} ms) stopped the run after ${sent} of ${REQUESTS} requests (${REPLAY})`);

    // No effect: the objects, events and ledger as before; only the allowed effects' objects may differ.
    const touchedEndpoint = accepted.some((a) => a.route.includes('/webhook_endpoints/') || a.route.includes('/redeliver'));
    if (touchedEndpoint) await new Promise((resolve) => setTimeout(resolve, 500)); // let a redelivery finish
    const after = { F: await snapshot(service, F, { withoutEndpoint: touchedEndpoint }), O: await snapshot(service, O), ledger: await trialBalance(service) };
    const comparable = touchedEndpoint ? Object.fromEntries(Object.entries(before.F).filter(([path]) => path in after.F && !/\/deliveries/.test(path))) : before.F;
    const afterComparable = touchedEndpoint ? Object.fromEntries(Object.entries(after.F).filter(([path]) => !/\/deliveries/.test(path))) : after.F;
    const changed = { F: changedPaths(comparable, afterComparable), O: changedPaths(before.O, after.O), ledger: JSON.stringify(before.ledger) === JSON.stringify(after.ledger) ? [] : [{ before: before.ledger, after: after.ledger }] };

    // Refused requests stored no idempotency result: the pool's keys still create.
    const keysStillFree: unknown[] = [];
    for (const key of IDEMPOTENCY_POOL) {
      const created = await service.http('POST', '/v1/payments', { key: F.key, body: paymentBody(F.integrator.merchant), headers: { 'Idempotency-Key': key } });
      if (created.status !== 201 || created.headers.get('idempotent-replayed')) keysStillFree.push({ key, status: created.status, body: created.body });
    }

    // Failures grouped by kind (ids and lengths left out), each with its count and first example.
    const groups = new Map<string, { count: number; example: unknown }>();
    for (const failure of failures as { request: { route: string }; problems: string[] }[]) {
      const kind = `${failure.request.route}: ${failure.problems.map((p) => p.replace(/[a-z]+_[A-Za-z0-9]{6,}/g, '…').replace(/\d+/g, 'N').slice(0, 100)).join(' | ')}`;
      const group = groups.get(kind) ?? { count: 0, example: failure };
      group.count++;
      groups.set(kind, group);
    }
    const report = { replay: REPLAY, sent, elapsedMs: elapsed, failureCount: failures.length, failures: [...groups.values()].slice(0, 30), changed, keysStillFree, loggedErrors: [...new Set(loggedErrors)] };
    if (process.env['FUZZ_REPORT']) writeFileSync(process.env['FUZZ_REPORT'], JSON.stringify({ ...report, statuses, accepted }, null, 2));
    expect(report).toEqual({ replay: REPLAY, sent, elapsedMs: elapsed, failureCount: 0, failures: [], changed: { F: [], O: [], ledger: [] }, keysStillFree: [], loggedErrors: [] });
    expect(sent).toBeGreaterThanOrEqual(Math.min(REQUESTS, 1000));
    // The run reached the service's handlers, not only its edge: some answers are successes, some refusals of each kind.
    expect(Object.keys(statuses).map(Number)).toEqual(expect.arrayContaining([200, 400, 401, 403, 404]));
  }, 150_000);
});
