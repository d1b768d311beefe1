import { Body, Controller, Get, Header, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ApiKeyWithSecretResource, ApiKeyResource, listOf, ServiceError, type ListResource } from '@pay/contracts';
import { API_KEY_ROLL_OVERLAP_MAX_SECONDS, API_KEY_SCOPES_MAX, STRING_LENGTH_MAX, type Clock } from '@pay/kernel';
import { CLOCK } from '@pay/platform';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { ApiKeyAuthenticator, LastUses } from '../auth/auth';
import { FULL_ACCESS, isScope, RequiresScope, SCOPE_RESOURCES } from '../auth/scopes';
import { Audit, Audited, type AuditTrail } from '../audit/audited';
import { ApiKeysRepository } from '../directory/api-keys.repository';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { NO_STORE } from '../http/headers';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { requireEmptyBody, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { secretSeal } from '../idempotency/secret-seal';
import { JsonBody, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { parseIsoInstant, parseListQuery } from './list-query';

export class CreateApiKeyBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) name!: string;
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(API_KEY_SCOPES_MAX) @IsString({ each: true }) scopes!: string[];
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) expires_at?: string;
}

export class RollApiKeyBody {
  @IsOptional() @IsInt() @Min(0) @Max(API_KEY_ROLL_OVERLAP_MAX_SECONDS) expires_in?: number;
}

/** `["*"]`, or known `<resource>:read|write` scopes (duplicates dropped, in the order given). */
const checkScopes = (scopes: string[]): string[] => {
  if (scopes.includes(FULL_ACCESS)) {
    if (scopes.some((s) => s !== FULL_ACCESS)) throw new ServiceError('invalid_request', 'scopes is either ["*"] or a list of <resource>:read|write scopes', 'scopes');
    return [FULL_ACCESS];
  }
  const unknown = scopes.find((s) => !isScope(s));
  if (unknown !== undefined) {
    throw new ServiceError('invalid_request', `unknown scope '${unknown}': a scope is <resource>:read or <resource>:write, resource one of ${SCOPE_RESOURCES.join(', ')}`, 'scopes');
  }
  return [...new Set(scopes)];
};

/**
 * An integrator's own API keys (contract section 16): restricted keys, rolling with an overlap,
 * revocation. Only a `["*"]` key may manage keys. A key's secret is in the answer of its creation or
 * roll only, and in the replay of either on the same Idempotency-Key: a retried create or roll makes no
 * second key. The stored answer holds the secret sealed (secretSeal), never as it is.
 */
@Controller('v1/api_keys')
@UseGuards(ApiKeyGuard)
@RequiresScope(FULL_ACCESS)
export class ApiKeysController {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly keys: ApiKeysRepository,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly lastUses: LastUses,
    private readonly idempotency: IdempotencyStore,
  ) {}

  /** `201` the key with its secret `api_key` (shown only here): `sk_…` for `["*"]`, `rk_…` otherwise. */
  @Returns(ApiKeyWithSecretResource, 'Create an API key', {
    description:
      'A key with the given scopes: `["*"]` (every /v1 route, an `sk_…` secret) or `<resource>:read` / `<resource>:write` (an `rk_…` secret). An unknown scope or an `expires_at` in the past is `400 invalid_request`. Answers 201 with the key and its secret `api_key`, shown only here.',
  })
  @JsonBody(CreateApiKeyBody)
  @Post()
  @HttpCode(201)
  @Audited('api_key.created')
  @Header('Cache-Control', NO_STORE) // the answer carries the key's secret
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<ApiKeyResource & { api_key: string }> {
    const input = validateBody(CreateApiKeyBody, request.body);
    const scopes = checkScopes(input.scopes);
    const now = this.clock.now();
    let expiresAt: Date | null = null;
    if (input.expires_at !== undefined) {
      const instant = parseIsoInstant(input.expires_at);
      if (instant === undefined || instant <= now.getTime()) throw new ServiceError('invalid_request', 'expires_at must be an ISO 8601 time in the future', 'expires_at');
      expiresAt = new Date(instant);
    }
    const idempotencyKey = checkIdempotencyKey(request.idempotencyKey);
    const call = { scope: integratorId, key: idempotencyKey, endpoint: 'POST /v1/api_keys', objectKind: 'apiKey' as const, seal: secretSeal(request, idempotencyKey, 'api_key') };
    return this.idempotency.run(call, request, async (keyId) => {
      const { key, secret } = await this.keys.create(integratorId, { name: input.name, scopes, expiresAt }, now, keyId, audit.record);
      return { ...key, api_key: secret };
    });
  }

  @Returns(listOf(ApiKeyResource), 'List API keys', { description: 'Every key of the integrator (also those the admin API issued), without secrets, newest first.' })
  @QueryParams(...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<ApiKeyResource>> {
    const { limit, startingAfter } = parseListQuery(query);
    // This gateway's uses not written yet: the list shows them (a failed write is retried by the next flush).
    await this.lastUses.flush().catch(() => undefined);
    const { data, hasMore } = await this.keys.list(integratorId, { limit, ...(startingAfter ? { startingAfter } : {}) }, this.clock.now());
    return { object: 'list', data, has_more: hasMore };
  }

  @Returns(ApiKeyResource, 'Retrieve an API key')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string): Promise<ApiKeyResource> {
    await this.lastUses.flush().catch(() => undefined);
    return this.keys.find(integratorId, id, this.clock.now());
  }

  /** `201` a new key (same name, scopes and expiry) with its secret; the old one works `expires_in` seconds more (default 0). */
  @Returns(ApiKeyWithSecretResource, 'Roll an API key', {
    description:
      'A new key with the same name, scopes and `expires_at`; the old key stops working `expires_in` seconds later (0 to 604800, default 0), or at its own `expires_at` if sooner. Answers 201 with the new key and its secret `api_key`, shown only here. A key is rolled once: an expired or revoked key, or one already rolled (in its overlap), is `409 invalid_status`.',
  })
  @JsonBody(RollApiKeyBody)
  @Post(':id/roll')
  @HttpCode(201)
  @Audited('api_key.rolled')
  @Header('Cache-Control', NO_STORE) // the answer carries the new key's secret
  async roll(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string, @Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<ApiKeyResource & { api_key: string }> {
    const input = validateBody(RollApiKeyBody, request.body ?? {});
    const idempotencyKey = checkIdempotencyKey(request.idempotencyKey);
    const call = { scope: integratorId, key: idempotencyKey, endpoint: `POST /v1/api_keys/${id}/roll`, objectKind: 'apiKey' as const, seal: secretSeal(request, idempotencyKey, 'api_key') };
    return this.idempotency.run(call, request, async (newKeyId) => {
      const { key, secret } = await this.keys.roll(integratorId, id, input.expires_in ?? 0, this.clock.now(), newKeyId, audit.record);
      this.authenticator.forget(id);
      return { ...key, api_key: secret };
    });
  }

  @Returns(ApiKeyResource, 'Revoke an API key', { description: 'Answers 200 with the key, `revoked`: it gets 401 from then on.' })
  @Post(':id/revoke')
  @HttpCode(200)
  @Audited('api_key.revoked')
  async revoke(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string, @Body() body: unknown, @Audit() audit: AuditTrail): Promise<ApiKeyResource> {
    requireEmptyBody(body);
    const key = await this.keys.revoke(integratorId, id, this.clock.now(), audit.record);
    this.authenticator.forget(id);
    return key;
  }
}
