import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod, type Type } from '@nestjs/common';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { ErrorResource, EVENT_SCHEMAS, nameOf, type JsonSchema } from '@pay/contracts';
import { AMOUNT_MAX_MINOR, AMOUNT_MIN_MINOR, IDEMPOTENCY_KEY_LENGTH_MAX, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, PATH_PARAM_LENGTH_MAX, STRING_LENGTH_MAX } from '@pay/kernel';
import { REQUIRED_SCOPE, scopeFor, type RouteScope } from '../auth/scopes';
import { HTTPS_URL_PATTERN } from '../http/validation';
import { BODY_DTO, BODY_MEDIA, IDEMPOTENT_CREATE, QUERY_PARAMS, RETURNS, type BodyMediaMetadata, type QueryParam, type ReturnsMetadata } from './describe';

export interface DescribedRoute {
  method: string;
  /** Nest's pattern, e.g. `/v1/payments/:id`. */
  path: string;
  handler: string;
  controller: string;
  successStatus: number;
  bodyDto?: string;
  /** A body that is not JSON: its media type and schema. */
  bodyMedia?: BodyMediaMetadata;
  query: QueryParam[];
  returns?: ReturnsMetadata;
  idempotentCreate: boolean;
  /** The scope an API key needs (`payments:read`, `*`, …): /v1 routes only. */
  scope?: string;
}

/** Every route the controllers declare, read from Nest's own metadata (what Fastify is given). */
export function describeRoutes(controllers: readonly Type[]): DescribedRoute[] {
  const routes: DescribedRoute[] = [];
  for (const controller of controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler = controller.prototype[name] as object;
      const path: unknown = Reflect.getMetadata(PATH_METADATA, handler);
      const method: unknown = Reflect.getMetadata(METHOD_METADATA, handler);
      if (typeof path !== 'string' || typeof method !== 'number') continue;
      const verb = RequestMethod[method]!;
      const dto = Reflect.getMetadata(BODY_DTO, handler) as Type | undefined;
      const returns = Reflect.getMetadata(RETURNS, handler) as ReturnsMetadata | undefined;
      const bodyMedia = Reflect.getMetadata(BODY_MEDIA, handler) as BodyMediaMetadata | undefined;
      const resource = (Reflect.getMetadata(REQUIRED_SCOPE, handler) ?? Reflect.getMetadata(REQUIRED_SCOPE, controller)) as RouteScope | undefined;
      routes.push({
        method: verb,
        path: `/${[base, path].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/'),
        handler: name,
        controller: controller.name,
        successStatus: (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (verb === 'POST' ? 201 : 200),
        ...(dto ? { bodyDto: dto.name } : {}),
        ...(bodyMedia ? { bodyMedia } : {}),
        query: (Reflect.getMetadata(QUERY_PARAMS, handler) as QueryParam[] | undefined) ?? [],
        ...(returns ? { returns } : {}),
        idempotentCreate: Reflect.getMetadata(IDEMPOTENT_CREATE, handler) === true,
        ...(resource ? { scope: scopeFor(resource, verb) } : {}),
      });
    }
  }
  return routes;
}

/** Class-validator's custom decorators of ours, as JSON Schema. */
const CUSTOM_CONSTRAINTS: Record<string, object> = {
  isAmount: { type: 'integer', minimum: AMOUNT_MIN_MINOR, maximum: AMOUNT_MAX_MINOR, description: 'Minor units of the currency.' },
  isSupportedCurrency: { type: 'string', enum: ['DZD', 'MAD', 'TND', 'XOF'] },
  isHttpsUrl: { type: 'string', format: 'uri', pattern: HTTPS_URL_PATTERN, description: 'An absolute `https://` URL (the scheme in any case) with a host, without whitespace or control characters.' },
  isIsoTime: { type: 'string', format: 'date-time' },
};

/** The tags of the document, in its order: a route's tag is its resource (`/v1/<tag>/…`) or its admin area. */
const TAGS: Record<string, string> = {
  payments: 'Pay: the customer authorizes a payment on a hosted page; the merchant is credited.',
  refunds: 'Refunds of succeeded payments, wholly or in parts, to the customer’s balance.',
  cash_payments: 'Cash checkout: the customer pays cash at a cash point.',
  supplier_payments: 'A business pays a supplier once an authorized user approves it.',
  beneficiaries: 'The suppliers a business may pay.',
  collections: 'Marketplace cash: collected, deposited at a cash point, settled to the wholesaler.',
  balances: 'The available balance of a connection’s account.',
  balance_transactions: 'Every movement of a connection’s account.',
  bank_accounts: 'The bank accounts a connection’s payouts go to (IBAN checked by ISO 13616).',
  payouts: 'Money out of a connection’s available balance to one of its bank accounts.',
  webhook_endpoints: 'Where events are delivered, signed (Standard Webhooks).',
  events: 'Every status change, as delivered to webhook endpoints.',
  api_keys: 'The integrator’s API keys: restricted scopes, rolling, revoking (a `["*"]` key only).',
  audit_events: 'Who changed what through the API (a `["*"]` key only).',
  test_helpers: 'Sandbox only: act as the customer, the agent or the approver, and move the service clock.',
  admin: 'The back office (admin key): integrators, keys, connections, customers, cash points, top-ups, payout batches and bank statements.',
  finance: 'Read-only access for finance (admin or finance key): balances, statements, entries, reports, the hash chain, the audit trail.',
  operations: 'The operator’s view of background work (admin key): subscriptions, parked events, failed deliveries.',
};

const ADMIN_TAGS: Record<string, string> = { FinanceController: 'finance', ReconciliationController: 'finance', AdminAuditEventsController: 'finance', OperationsController: 'operations' };

const camel = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const words = (name: string): string => name.replace(/_/g, ' ');

const tagOf = (route: DescribedRoute): string => {
  const segments = route.path.split('/');
  return route.path.startsWith('/admin/') ? (ADMIN_TAGS[route.controller] ?? 'admin') : (segments[2] ?? 'v1');
};

const operationIdOf = (route: DescribedRoute, tag: string): string => {
  if (route.returns?.operationId) return route.returns.operationId;
  if (route.path.startsWith('/admin/')) return `admin.${route.handler}`;
  if (tag === 'test_helpers') return `testHelpers.${camel(route.path.split('/')[3] ?? '')}.${route.handler}`;
  return `${camel(tag)}.${route.handler}`;
};

const TIME_PARAMS = new Set(['created_gte', 'created_lt', 'from', 'to', 'as_of', 'since']);
const TIME_DESCRIPTIONS: Record<string, string> = {
  created_gte: 'Objects created at or after this time (inclusive).',
  created_lt: 'Objects created before this time (exclusive).',
  as_of: 'The state at this time (movements with created_at <= as_of).',
  from: 'Start of the period.',
  to: 'End of the period.',
};

/** A query parameter's schema: from its declaration, else from its name. */
function queryParameters(params: readonly QueryParam[]): object[] {
  const out: object[] = [];
  const add = (rawName: string, given?: readonly string[] | JsonSchema) => {
    const name = rawName.replace(/!$/, '');
    let schema: JsonSchema;
    let description: string;
    if (Array.isArray(given)) {
      schema = { type: 'string', enum: [...(given as readonly string[])] };
      description = `Only the objects with this ${words(name)}.`;
    } else if (given) {
      schema = given as JsonSchema;
      description = (schema['description'] as string | undefined) ?? `The ${words(name)}.`;
    } else if (name === 'limit') {
      schema = { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT };
      description = `How many objects a page holds, 1 to ${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}).`;
    } else if (name === 'starting_after') {
      schema = { type: 'string', maxLength: STRING_LENGTH_MAX };
      description = 'The id of the last object of the previous page: the page after it. It must be an object of the list as filtered (its status aside), else 400 invalid_request.';
    } else if (TIME_PARAMS.has(name)) {
      schema = { type: 'string', format: 'date-time' };
      description = TIME_DESCRIPTIONS[name] ?? `An ISO 8601 time (${words(name)}).`;
    } else {
      schema = { type: 'string', minLength: 1, maxLength: STRING_LENGTH_MAX };
      description = `Only the objects with this ${words(name)}.`;
    }
    out.push({ name, in: 'query', required: rawName.endsWith('!'), description, schema });
  };
  for (const param of params) {
    if (typeof param === 'string') add(param);
    else for (const [name, given] of Object.entries(param)) add(name, given);
  }
  return out;
}

const REQUEST_ID = { $ref: '#/components/headers/Request-Id' };

/** The errors of section 2, one response each, shared by every operation. */
const ERROR_RESPONSES: Record<string, { name: string; description: string; retryAfter?: 'required' | 'optional' }> = {
  '400': { name: 'BadRequest', description: 'invalid_request, invalid_amount, unsupported_currency, currency_mismatch or insufficient_balance (a payout above the available balance): the parameter at fault is `param`.' },
  '401': { name: 'Unauthorized', description: 'authentication_required: the key is missing, malformed, unknown or revoked (the scheme `Bearer` in any case). The key is checked first, then its scope (403), then the body: a body that is not JSON is 401 without a valid key.' },
  '403': { name: 'Forbidden', description: 'insufficient_scope (a restricted key without the operation’s `x-required-scope`, named in `param`), connection_not_authorized, beneficiary_not_authorized, or forbidden (a finance key outside the ledger’s reads).' },
  '404': { name: 'NotFound', description: 'resource_not_found: an unknown id, or an object of another integrator.' },
  '409': { name: 'Conflict', description: 'invalid_status (not allowed in the object’s status), idempotency_key_reused or idempotency_key_in_use.' },
  '413': { name: 'PayloadTooLarge', description: 'invalid_request: the body is over 1 MB (1,048,576 bytes; a bank statement: 10 MB), answered before the key is checked.' },
  '415': { name: 'UnsupportedMediaType', description: 'invalid_request: a Content-Encoding, or a charset other than UTF-8.' },
  '429': { name: 'TooManyRequests', description: 'rate_limited: too many requests a second for this key; retry after `Retry-After` seconds.', retryAfter: 'required' },
  '500': { name: 'InternalError', description: 'internal_error: the request may be retried with the same Idempotency-Key.' },
  '503': { name: 'ServiceUnavailable', description: 'service_unavailable: the database or a part of the service is unreachable for a moment; retry after `Retry-After` seconds with the same Idempotency-Key.', retryAfter: 'required' },
};

const errorResponseComponents = () =>
  Object.fromEntries(
    Object.values(ERROR_RESPONSES).map(({ name, description, retryAfter }) => [
      name,
      {
        description,
        headers: { 'Request-Id': REQUEST_ID, ...(retryAfter ? { 'Retry-After': { ...(retryAfter === 'required' ? { required: true } : {}), description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } } : {}) },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );

/**
 * Every named schema a schema uses, hoisted into `components/schemas` and replaced by a `$ref`
 * (OpenAPI's way to declare a shape once), depth first.
 */
function hoist(schema: JsonSchema, components: Record<string, JsonSchema>, top = true): JsonSchema {
  const name = nameOf(schema);
  if (name !== undefined && !top) {
    if (!(name in components)) components[name] = hoist(schema, components, true);
    return { $ref: `#/components/schemas/${name}` };
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') out[key] = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([p, s]) => [p, hoist(s, components, false)]));
    else if (key === 'items') out[key] = hoist(value as JsonSchema, components, false);
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') out[key] = (value as JsonSchema[]).map((s) => hoist(s, components, false));
    else out[key] = value;
  }
  return out;
}

/** A named schema's `$ref` (hoisting it); an unnamed one inline. */
const refTo = (schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema => hoist(schema, components, nameOf(schema) === undefined);

/** The Standard Webhooks headers of every delivery. */
const WEBHOOK_HEADERS = [
  { name: 'webhook-id', in: 'header', required: true, description: 'The event id (`evt_…`), the same on every attempt: deduplicate on it.', schema: { type: 'string', pattern: '^evt_' } },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds of this attempt, on the real wall clock.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` + base64 of HMAC-SHA256, keyed with the base64-decoded part of the secret after `whsec_`, over `webhook-id + "." + webhook-timestamp + "." + body`. Two signatures, space-separated, for 24 hours after a secret rotation.',
    schema: { type: 'string', pattern: '^v1,' },
  },
];

function webhooksSection(components: Record<string, JsonSchema>): Record<string, unknown> {
  const webhooks: Record<string, unknown> = {};
  for (const { types, schema } of EVENT_SCHEMAS) {
    const ref = refTo(schema, components);
    for (const type of types) {
      webhooks[type] = {
        post: {
          operationId: `webhooks.${camel(type.replace('.', '_'))}`,
          summary: `The ${type} event`,
          description: `Sent to every enabled endpoint of the owner that listens to \`${type}\` (or \`*\`), signed as Standard Webhooks. Any 2xx within 15 seconds is a success; anything else is retried with the same id and body about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later.`,
          tags: ['events'],
          // Sent by the service, signed: the receiver checks the signature headers, not a key.
          security: [],
          parameters: WEBHOOK_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: ref } } },
          responses: {
            '200': { description: 'Received: any 2xx status counts.' },
            '400': { description: 'Refused (e.g. a bad signature): retried later, as any status other than 2xx.' },
          },
        },
      };
    }
  }
  return webhooks;
}

const defaultDescription = (route: DescribedRoute, returns: ReturnsMetadata): string => {
  const what = nameOf(returns.schema);
  return `${returns.summary}. Answers ${route.successStatus}${what ? ` with ${/List$/.test(what) ? `a page of ${what.replace(/List$/, '')} objects, newest first` : `the ${what}`}` : ''}.`;
};

/** Whether the route takes a JSON body that must be empty (an action without parameters, a delete). */
const takesEmptyBody = (route: DescribedRoute): boolean => (route.method === 'POST' || route.method === 'DELETE') && route.bodyDto === undefined && route.bodyMedia === undefined;

/**
 * The OpenAPI 3.1 document of `/v1` and `/admin/v1`, generated from the controllers: paths and
 * methods from Nest's route metadata, request bodies from the class-validator DTOs that validate them,
 * responses from the schemas of `libs/contracts` the handlers name with `@Returns`.
 */
export function buildOpenApiDocument(controllers: readonly Type[], info: { title: string; version: string; serverUrl: string }): Record<string, unknown> {
  const routes = describeRoutes(controllers).filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/admin/v1/'));
  const dtoSchemas = validationMetadatasToSchemas({
    additionalConverters: { customValidation: (meta: { name?: string; constraints?: unknown[] }) => CUSTOM_CONSTRAINTS[meta.name ?? ''] ?? {} },
  } as never) as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = {};
  schemas['Error'] = hoist(ErrorResource, schemas);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const openApiPath = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const pathParams = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      description: m[1] === 'id' ? 'The object’s id.' : `The ${words(m[1]!)}’s id.`,
      schema: { type: 'string', minLength: 1, maxLength: PATH_PARAM_LENGTH_MAX },
    }));
    const admin = route.path.startsWith('/admin/');
    const tag = tagOf(route);
    const returns = route.returns ?? { schema: { type: 'object' }, summary: `${route.method} ${openApiPath}` };
    const success = { description: returns.summary, headers: { 'Request-Id': REQUEST_ID, ...(route.idempotentCreate ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } } : {}) } };
    const errorStatuses = ['400', '401', '403', '404', ...(route.method === 'GET' ? (returns.conflict ? ['409'] : []) : ['409', '413', '415']), '429', '500', '503'];
    const operation: Record<string, unknown> = {
      operationId: operationIdOf(route, tag),
      summary: returns.summary,
      description: returns.description ?? defaultDescription(route, returns),
      tags: [tag],
      security: admin
        ? [{ [tag === 'finance' && route.method === 'GET' ? 'financeKey' : 'adminKey']: [] }, ...(tag === 'finance' && route.method === 'GET' ? [{ adminKey: [] }] : [])]
        : // The scope goes in `x-required-scope`: security requirements name scopes of OAuth 2 schemes only (the linters hold to it).
          [{ apiKey: [] }],
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
      parameters: [
        ...pathParams,
        ...queryParameters(route.query),
        ...(route.idempotentCreate
          ? [
              {
                name: 'Idempotency-Key',
                in: 'header',
                required: route.path === '/v1/payments',
                description: 'Makes a retry safe: the same key and body answer the original response again (with `Idempotent-Replayed: true`), for at least 24 hours.',
                schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_LENGTH_MAX },
              },
            ]
          : []),
      ],
      responses: {
        [String(route.successStatus)]: {
          ...success,
          content: returns.mediaType
            ? { [returns.mediaType]: { schema: returns.schema } }
            : {
            'application/json': { schema: refTo(returns.schema, schemas) },
            ...(returns.csv ? { 'text/csv': { schema: { type: 'string', description: 'A header row, then one row per line or posting (when `Accept` prefers `text/csv` to `application/json`, by its q-values).' } } } : {}),
          },
        },
        ...Object.fromEntries(errorStatuses.map((status) => [status, { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` }])),
      },
    };
    if (route.bodyMedia) {
      operation['requestBody'] = { required: true, content: { [route.bodyMedia.mediaType]: { schema: route.bodyMedia.schema } } };
    } else if (route.bodyDto) {
      operation['requestBody'] = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.bodyDto}` } } } };
    } else if (takesEmptyBody(route)) {
      operation['requestBody'] = { required: false, description: 'No parameters: no body, or an empty JSON object.', content: { 'application/json': { schema: { $ref: '#/components/schemas/EmptyBody' } } } };
    }
    (paths[openApiPath] ??= {})[route.method.toLowerCase()] = operation;
  }
  for (const name of new Set(routes.flatMap((r) => (r.bodyDto ? [r.bodyDto] : [])))) schemas[name] = closedBody(dtoSchemas[name]!);
  if (routes.some(takesEmptyBody)) schemas['EmptyBody'] = { type: 'object', maxProperties: 0, additionalProperties: false, description: 'An action without parameters.' };
  const webhooks = webhooksSection(schemas);
  const usedTags = new Set(Object.values(paths).flatMap((ops) => Object.values(ops).map((op) => ((op as { tags: string[] }).tags[0])!)));
  usedTags.add('events');
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      summary: 'Payments, cash checkout, supplier payments and marketplace collections.',
      description:
        'Amounts are integers in minor units of the currency (DZD 2 decimals, MAD 2, TND 3, XOF 0); times are ISO 8601 UTC with milliseconds. Every error is `{ "error": { "code", "message", "param"? } }`; every response carries a `Request-Id` header. A body parameter sent as JSON `null` counts as missing: an optional one is left as it is, a required one is refused. Creates are idempotent by `Idempotency-Key` (required on `POST /v1/payments`).',
      contact: { name: 'Payments API support', url: `${info.serverUrl}/docs` },
      license: { name: 'Proprietary', url: `${info.serverUrl}/docs` },
    },
    servers: [{ url: info.serverUrl, description: 'This service (PUBLIC_BASE_URL).' }],
    tags: [...Object.keys(TAGS), ...[...usedTags].filter((t) => !(t in TAGS))].filter((t) => usedTags.has(t)).map((name) => ({ name, description: TAGS[name] ?? `The ${words(name)} routes.` })),
    paths,
    webhooks,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An integrator’s key: `sk_…` (every scope) or `rk_…` (restricted: each operation names the scope it needs in `x-required-scope`).' },
        adminKey: { type: 'http', scheme: 'bearer', description: 'The admin key (ADMIN_API_KEY).' },
        financeKey: { type: 'http', scheme: 'bearer', description: 'A finance key, `fk_…`: the ledger’s reads only.' },
      },
      headers: {
        'Request-Id': { required: true, description: 'Identifies the request in the service’s logs and traces: quote it when asking for help.', schema: { type: 'string' } },
        'Idempotent-Replayed': { description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
      },
      responses: errorResponseComponents(),
      schemas,
    },
  };
}

/**
 * A DTO's schema as the service applies it: every parameter it does not declare is refused. An
 * ISO 8601 parameter accepts a date or a time: class-validator-jsonschema's `oneOf` of the two
 * overlaps (a string may match both), so it becomes `anyOf`.
 */
function closedBody(schema: JsonSchema): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries((schema['properties'] ?? {}) as Record<string, JsonSchema>).map(([name, property]) => {
      const { oneOf, ...rest } = property;
      return [name, oneOf === undefined ? property : { ...rest, anyOf: oneOf }];
    }),
  );
  return { ...schema, properties, additionalProperties: false };
}
