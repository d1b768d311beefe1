import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '@pay/contracts';
import type { ApiKeyRecord, DirectoryRepository } from '../directory/directory.repository';
import type { RateLimiter } from './rate-limiter';

const KEY_CACHE_TTL_MS = 2_000;
const KEY_CACHE_MAX = 10_000;
const BEARER = /^Bearer ([A-Za-z0-9_]{1,200})$/;

const unauthenticated = (message: string) => new ServiceError('authentication_required', message);

export const bearerToken = (request: FastifyRequest): string => {
  const header = request.headers.authorization;
  if (!header) throw unauthenticated('the Authorization header is missing: send Authorization: Bearer <API key>');
  const match = BEARER.exec(header);
  if (!match) throw unauthenticated('the Authorization header must be: Bearer <API key>');
  return match[1]!;
};

/**
 * Integrator API keys. A key found active is remembered for 2 s (one lookup, not one per request);
 * a revocation through this gateway forgets it at once.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { record: ApiKeyRecord; until: number }>();

  constructor(
    private readonly directory: DirectoryRepository,
    private readonly limiter: RateLimiter,
  ) {}

  async authenticate(request: FastifyRequest, reply: FastifyReply): Promise<ApiKeyRecord> {
    const secret = bearerToken(request);
    if (!secret.startsWith('sk_')) throw unauthenticated('this is not an integrator API key');
    const record = await this.lookup(secret);
    if (!record) throw unauthenticated('the API key is unknown or revoked');
    const waitSeconds = this.limiter.take(record.keyId);
    if (waitSeconds > 0) {
      void reply.header('Retry-After', String(waitSeconds));
      throw new ServiceError('rate_limited', `too many requests for this API key; retry in ${waitSeconds} s`);
    }
    return record;
  }

  forget(keyId: string): void {
    for (const [secret, entry] of this.cache) if (entry.record.keyId === keyId) this.cache.delete(secret);
  }

  private async lookup(secret: string): Promise<ApiKeyRecord | undefined> {
    const now = Date.now();
    const cached = this.cache.get(secret);
    if (cached && cached.until > now) return cached.record;
    const record = await this.directory.findActiveKey(secret);
    if (record) {
      if (this.cache.size >= KEY_CACHE_MAX) this.cache.clear();
      this.cache.set(secret, { record, until: now + KEY_CACHE_TTL_MS });
    } else {
      this.cache.delete(secret);
    }
    return record;
  }
}

/** The admin API key, compared in constant time; an integrator key there is 401 too. */
export const checkAdminKey = (request: FastifyRequest, adminApiKey: string): void => {
  const given = Buffer.from(bearerToken(request));
  const expected = Buffer.from(adminApiKey);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthenticated('the admin API key is required');
};
