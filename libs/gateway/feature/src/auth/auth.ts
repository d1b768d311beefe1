import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '@pay/contracts';
import { noteIntegrator } from '@pay/observability';
import { API_KEY_CACHE_MAX, API_KEY_CACHE_TTL_MS, API_KEY_LAST_USED_FLUSH_MS, API_KEY_LENGTH_MAX, systemClock, type Clock } from '@pay/kernel';
import { FINANCE_KEY_PREFIX, type ApiKeyRecord, type DirectoryRepository } from '../directory/directory.repository';
import type { RateLimiter } from './rate-limiter';

/** The scheme in any case (RFC 9110 11.1: an auth scheme is case-insensitive): `bearer sk_…` is a bearer too. */
const BEARER = new RegExp(`^Bearer ([A-Za-z0-9_]{1,${API_KEY_LENGTH_MAX}})$`, 'i');

const unauthenticated = (message: string) => new ServiceError('authentication_required', message);

export const bearerToken = (request: FastifyRequest): string => {
  const header = request.headers.authorization;
  if (!header) throw unauthenticated('the Authorization header is missing: send Authorization: Bearer <API key>');
  const match = BEARER.exec(header);
  if (!match) throw unauthenticated('the Authorization header must be: Bearer <API key>');
  return match[1]!;
};

/**
 * Integrator API keys (`sk_…` full access, `rk_…` restricted). A key found unrevoked is remembered for
 * API_KEY_CACHE_TTL_MS (one lookup, not one per request): a revocation or a roll through another gateway
 * takes effect here within that time, through this gateway at once. Expiry is checked at every request,
 * on the service clock, so a rolled key stops at the instant its overlap ends.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { record: ApiKeyRecord; until: number }>();

  constructor(
    private readonly directory: DirectoryRepository,
    private readonly limiter: RateLimiter,
    private readonly clock: Clock = systemClock,
    private readonly lastUses?: LastUses,
  ) {}

  async authenticate(request: FastifyRequest, reply: FastifyReply): Promise<ApiKeyRecord> {
    const secret = bearerToken(request);
    if (!secret.startsWith('sk_') && !secret.startsWith('rk_')) throw unauthenticated('this is not an integrator API key');
    const record = await this.lookup(secret);
    if (!record) throw unauthenticated('the API key is unknown or revoked');
    const now = this.clock.now();
    if (record.expiresAt !== null && record.expiresAt <= now.getTime()) throw unauthenticated('the API key has expired');
    // The request's log line, and the lines it causes, name the integrator (never the key).
    noteIntegrator(record.integratorId);
    this.lastUses?.note(record.keyId, now);
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
      if (this.cache.size >= API_KEY_CACHE_MAX) this.cache.clear();
      this.cache.set(secret, { record, until: now + API_KEY_CACHE_TTL_MS });
    } else {
      this.cache.delete(secret);
    }
    return record;
  }
}

/**
 * Each key's last authenticated request, written in batches (every API_KEY_LAST_USED_FLUSH_MS, and
 * before a list of keys is read here), not on every request: `last_used_at` is at most that far behind.
 */
export class LastUses {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (uses: ReadonlyMap<string, Date>) => Promise<void>,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  note(keyId: string, at: Date): void {
    const known = this.pending.get(keyId);
    if (!known || known < at) this.pending.set(keyId, at);
  }

  start(intervalMs = API_KEY_LAST_USED_FLUSH_MS): void {
    this.timer ??= setInterval(() => void this.flush().catch(this.onError), intervalMs);
    this.timer.unref();
  }

  onModuleInit(): void {
    this.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch(this.onError);
  }

  /** Writes the uses noted so far; uses noted meanwhile wait for the next flush. A failed write keeps them. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.write(batch);
    } catch (error) {
      for (const [keyId, at] of batch) this.note(keyId, at);
      throw error;
    }
  }
}

/** Whether the bearer is the admin API key, compared in constant time. */
const isAdminKey = (token: string, adminApiKey: string): boolean => {
  const given = Buffer.from(token);
  const expected = Buffer.from(adminApiKey);
  return given.length === expected.length && timingSafeEqual(given, expected);
};

/**
 * The back office's keys. The admin key may call every /admin/v1 route; a finance key only the ledger's
 * reads (`forbidden` elsewhere); an integrator key or anything else is 401. A finance key's uses are
 * noted as an integrator key's are (`last_used_at`, written in batches).
 */
export class AdminAuthenticator {
  constructor(
    private readonly adminApiKey: string,
    private readonly directory: DirectoryRepository,
    private readonly clock: Clock = systemClock,
    private readonly lastUses?: LastUses,
  ) {}

  /** Admin key only: a valid finance key is 403 forbidden, anything else 401. */
  async admin(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request);
    if (isAdminKey(token, this.adminApiKey)) return;
    if (await this.isFinanceKey(token)) throw new ServiceError('forbidden', 'a finance key may only read the ledger (GET /admin/v1/ledger/…, balances)');
    throw unauthenticated('the admin API key is required');
  }

  /** The ledger's reads: the admin key or a finance key. */
  async financeOrAdmin(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request);
    if (isAdminKey(token, this.adminApiKey) || (await this.isFinanceKey(token))) return;
    throw unauthenticated('the admin API key or a finance key is required');
  }

  /** What a key signs in to the console as: the admin key, an active finance key (by its id), or neither. */
  async consoleCredentialOf(token: string): Promise<{ role: 'admin' } | { role: 'finance'; keyId: string } | undefined> {
    if (isAdminKey(token, this.adminApiKey)) return { role: 'admin' };
    const keyId = await this.financeKeyId(token);
    return keyId === undefined ? undefined : { role: 'finance', keyId };
  }

  private async isFinanceKey(token: string): Promise<boolean> {
    return (await this.financeKeyId(token)) !== undefined;
  }

  /** The active finance key's id, its use noted (a refused route is a use too, as for an integrator key). */
  private async financeKeyId(token: string): Promise<string | undefined> {
    if (!token.startsWith(FINANCE_KEY_PREFIX)) return undefined;
    const keyId = await this.directory.activeFinanceKeyId(token);
    if (keyId !== undefined) this.lastUses?.note(keyId, this.clock.now());
    return keyId;
  }
}
