import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod, type Type } from '@nestjs/common';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { ERROR_STATUS } from '@pay/contracts';
import { AMOUNT_MAX_MINOR, AMOUNT_MIN_MINOR, IDEMPOTENCY_KEY_LENGTH_MAX, PATH_PARAM_LENGTH_MAX } from '@pay/kernel';
import { REQUIRED_SCOPE, scopeFor, type RouteScope } from '../auth/scopes';
import { BODY_DTO, QUERY_PARAMS } from './describe';

export interface DescribedRoute {
  method: string;
  /** Nest's pattern, e.g. `/v1/payments/:id`. */
  path: string;
  handler: string;
  controller: string;
  successStatus: number;
  bodyDto?: string;
  query: string[];
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
      const resource = (Reflect.getMetadata(REQUIRED_SCOPE, handler) ?? Reflect.getMetadata(REQUIRED_SCOPE, controller)) as RouteScope | undefined;
      routes.push({
        method: verb,
        path: `/${[base, path].filter((p) => p && p !== '/').join('/')}`.replace(/\/+/g, '/'),
        handler: name,
        controller: controller.name,
        successStatus: (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (verb === 'POST' ? 201 : 200),
        ...(dto ? { bodyDto: dto.name } : {}),
        query: (Reflect.getMetadata(QUERY_PARAMS, handler) as string[] | undefined) ?? [],
        ...(resource ? { scope: scopeFor(resource, verb) } : {}),
      });
    }
  }
  return routes;
}

/** Class-validator's custom decorators of ours, as JSON Schema. */
const CUSTOM_CONSTRAINTS: Record<string, object> = {
  isAmount: { type: 'integer', minimum: AMOUNT_MIN_MINOR, maximum: AMOUNT_MAX_MINOR, description: 'minor units' },
  isSupportedCurrency: { type: 'string', enum: ['DZD', 'MAD', 'TND', 'XOF'] },
  isHttpsUrl: { type: 'string', format: 'uri', pattern: '^https://' },
};

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
        message: { type: 'string', description: 'for humans; never a stack trace' },
        param: { type: 'string', description: 'the parameter at fault, when there is one' },
      },
    },
  },
} as const;

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/**
 * The OpenAPI 3.1 document of `/v1` and `/admin/v1`, generated from the controllers: paths and
 * methods from Nest's route metadata, request bodies from the class-validator DTOs that validate them.
 */
export function buildOpenApiDocument(controllers: readonly Type[], info: { title: string; version: string; serverUrl: string }): Record<string, unknown> {
  const routes = describeRoutes(controllers).filter((r) => r.path.startsWith('/v1/') || r.path.startsWith('/admin/v1/') || r.path === '/v1' || r.path === '/admin/v1');
  const dtoSchemas = validationMetadatasToSchemas({
    additionalConverters: { customValidation: (meta: { name?: string; constraints?: unknown[] }) => CUSTOM_CONSTRAINTS[meta.name ?? ''] ?? {} },
  } as never) as Record<string, object>;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const openApiPath = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const pathParams = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string', maxLength: PATH_PARAM_LENGTH_MAX } }));
    const queryParams = route.query.map((q) => ({ name: q.replace(/!$/, ''), in: 'query', required: q.endsWith('!'), schema: q.startsWith('limit') ? { type: 'integer', minimum: 1 } : { type: 'string' } }));
    const admin = route.path.startsWith('/admin/');
    const operation: Record<string, unknown> = {
      operationId: `${route.controller.replace(/Controller$/, '')}_${route.handler}`,
      tags: [route.path.split('/')[admin ? 3 : 2] ?? 'root'],
      security: [{ [admin ? 'adminKey' : 'apiKey']: route.scope ? [route.scope] : [] }],
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
      parameters: [
        ...pathParams,
        ...queryParams,
        ...(route.method === 'POST' && !admin ? [{ name: 'Idempotency-Key', in: 'header', required: route.path === '/v1/payments', schema: { type: 'string', maxLength: IDEMPOTENCY_KEY_LENGTH_MAX } }] : []),
      ],
      responses: {
        [String(route.successStatus)]: { description: 'the object, a list envelope or the result of the action', content: { 'application/json': { schema: { type: 'object' } } } },
        '400': errorResponse('invalid_request, invalid_amount, unsupported_currency or currency_mismatch'),
        '401': errorResponse('authentication_required'),
        '403': errorResponse(
          admin ? 'forbidden (a finance key outside the ledger reads)' : `insufficient_scope (the key lacks ${route.scope ?? 'the route\'s scope'}), connection_not_authorized or beneficiary_not_authorized`,
        ),
        '404': errorResponse('resource_not_found'),
        ...(route.method === 'POST' ? { '409': errorResponse('invalid_status, idempotency_key_reused or idempotency_key_in_use') } : {}),
        ...(route.method === 'POST' ? { '415': errorResponse('invalid_request: a Content-Encoding, or a charset other than UTF-8') } : {}),
        '429': errorResponse('rate_limited (Retry-After)'),
        '503': errorResponse('service_unavailable (Retry-After): the database or a part of the service is unreachable for a moment; retry'),
      },
    };
    if (route.bodyDto) operation['requestBody'] = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.bodyDto}` } } } };
    (paths[openApiPath] ??= {})[route.method.toLowerCase()] = operation;
  }
  const used = new Set(routes.flatMap((r) => (r.bodyDto ? [r.bodyDto] : [])));
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: 'Payments, cash checkout, supplier payments and collections. Amounts are integers in minor units.' },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'an integrator key: sk_… (every scope) or rk_… (restricted: each operation names the scope it needs)' },
        adminKey: { type: 'http', scheme: 'bearer', description: 'the admin key, or a finance key (fk_…) on the ledger reads' },
      },
      schemas: { Error: ERROR_SCHEMA, ...Object.fromEntries(Object.entries(dtoSchemas).filter(([name]) => used.has(name))) },
    },
  };
}
