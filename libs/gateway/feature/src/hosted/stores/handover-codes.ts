import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';
import { HANDOVER_CODE_DIGITS } from '@pay/kernel';

const SECRET_NAME = 'handover_codes';

/**
 * Handover codes: the recipient of a collection's cash gives the carrier a 6-digit code, which the
 * carrier enters in the agents' application to confirm the handover. The code is an HMAC-SHA256 of the
 * collection id (HOSTED_PAGES_SECRET, else a secret generated once and kept in PostgreSQL, so that
 * every gateway process derives the same codes): nothing to store, nothing in a URL. Wrong codes are
 * limited per collection by the SignInLimiter (5 → 15 minutes locked), so guessing 1 in 10^6 is hopeless.
 */
export class HandoverCodes {
  private secret: Promise<string> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly configured: string | undefined = process.env['HOSTED_PAGES_SECRET'],
  ) {}

  async codeOf(collectionId: string): Promise<string> {
    const mac = createHmac('sha256', await this.key()).update(`handover:${collectionId}`).digest();
    return String(mac.readUInt32BE(0) % 10 ** HANDOVER_CODE_DIGITS).padStart(HANDOVER_CODE_DIGITS, '0');
  }

  /** Constant-time; spaces in the typed code are ignored. */
  async matches(collectionId: string, typed: string): Promise<boolean> {
    const given = Buffer.from(typed.replace(/\s/g, ''));
    const expected = Buffer.from(await this.codeOf(collectionId));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private key(): Promise<string> {
    if (this.configured) return Promise.resolve(this.configured);
    this.secret ??= this.storedSecret().catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }

  private async storedSecret(): Promise<string> {
    await this.pool.query('INSERT INTO gw_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [SECRET_NAME, randomBytes(32).toString('base64url')]);
    const { rows } = await this.pool.query<{ value: string }>('SELECT value FROM gw_secrets WHERE name = $1', [SECRET_NAME]);
    return rows[0]!.value;
  }
}
