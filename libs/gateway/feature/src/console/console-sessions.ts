import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { CONSOLE_SESSION_ABSOLUTE_MS, CONSOLE_SESSION_IDLE_MS, SECOND_MS } from '@pay/kernel';
import { readCookie } from '../hosted/stores/sessions';

/** Who signed in: the admin key (every page and action) or a finance key (reads only). */
export type ConsoleRoleName = 'admin' | 'finance';

/** The key a session is opened with: the admin key, or a finance key by its id (never the key itself). */
export type ConsoleCredential = { role: 'admin' } | { role: 'finance'; keyId: string };

export interface ConsoleSession {
  role: ConsoleRoleName;
  csrfToken: string;
}

/** The console's cookies live under /console only: the hosted pages and the API never see them. */
export const CONSOLE_PATH = '/console';
export const CONSOLE_SESSION_COOKIE = 'pay_console';
/** The sign-in form's double-submit token (no session exists yet). */
export const CONSOLE_SIGN_IN_CSRF_COOKIE = 'pay_console_csrf';
export const CONSOLE_LANGUAGE_COOKIE = 'pay_console_lang';

const SESSION = Symbol('console-session');
type WithSession = FastifyRequest & { [SESSION]?: ConsoleSession };

/** The session the console's guard found for this request (undefined before the guard, or on the sign-in page). */
export const sessionOf = (request: FastifyRequest): ConsoleSession | undefined => (request as WithSession)[SESSION];
export const attachSession = (request: FastifyRequest, session: ConsoleSession): void => {
  (request as WithSession)[SESSION] = session;
};

const randomToken = (): string => randomBytes(32).toString('base64url');
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
/**
 * The admin key's fingerprint for one session: an HMAC keyed with the session's own id, which only the
 * browser holds, so the table holds nothing to test a guessed key against.
 */
const adminKeyMac = (sessionId: string, adminApiKey: string): string => createHmac('sha256', sessionId).update(adminApiKey).digest('hex');
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Console sessions in PostgreSQL (gw_console_sessions); the browser holds only a random id in an
 * HTTP-only, SameSite=Strict cookie. A session ends at sign-out, after CONSOLE_SESSION_IDLE_MS without a
 * request, CONSOLE_SESSION_ABSOLUTE_MS after sign-in, and when its key no longer signs in: a finance
 * key revoked or expired, an admin key that is no longer this gateway's ADMIN_API_KEY.
 */
export class ConsoleSessionStore {
  constructor(
    private readonly pool: Pool,
    /** Secure cookies outside the sandbox (a sandbox may be served over plain HTTP on a LAN). */
    private readonly secure: boolean,
    /** The admin key sessions of the admin role must have been opened with. */
    private readonly adminApiKey: string,
    /**
     * Restarts a session's idle clock at every page without waiting for the WAL flush (a flush per page
     * view, slow on a busy database): a crash loses at most the last restarts, so a session ends a
     * little sooner, never later. Sign-in and sign-out wait for theirs.
     */
    private readonly touchPool: Pool = pool,
  ) {}

  /** A new session (the previous one of this browser, if any, closed): the cookie set, its CSRF token returned. */
  async open(request: FastifyRequest, reply: FastifyReply, credential: ConsoleCredential): Promise<ConsoleSession> {
    await this.forget(request);
    const id = randomToken();
    const csrfToken = randomToken();
    await this.pool.query(
      `INSERT INTO gw_console_sessions (id_sha256, role, csrf_token, expires_at, finance_key_id, admin_key_mac)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4), $5, $6)`,
      [
        sha256(id),
        credential.role,
        csrfToken,
        CONSOLE_SESSION_ABSOLUTE_MS / SECOND_MS,
        credential.role === 'finance' ? credential.keyId : null,
        credential.role === 'admin' ? adminKeyMac(id, this.adminApiKey) : null,
      ],
    );
    this.setCookie(reply, CONSOLE_SESSION_COOKIE, id, CONSOLE_SESSION_ABSOLUTE_MS);
    return { role: credential.role, csrfToken };
  }

  /**
   * The request's live session, its idle clock restarted in the same statement; undefined for no
   * cookie, an unknown id, a session past either of its ends, or one whose key no longer signs in
   * (checked at every request, as the admin API checks a key at every call).
   */
  async current(request: FastifyRequest): Promise<ConsoleSession | undefined> {
    const id = readCookie(request, CONSOLE_SESSION_COOKIE);
    if (!id || !TOKEN.test(id)) return undefined;
    const { rows } = await this.touchPool.query<{ role: ConsoleRoleName; csrf_token: string }>({
      name: 'gw-console-session',
      text: `UPDATE gw_console_sessions s SET last_seen_at = now()
             WHERE s.id_sha256 = $1 AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(secs => $2)
               AND CASE s.role
                 WHEN 'admin' THEN s.admin_key_mac = $3
                 ELSE EXISTS (SELECT 1 FROM gw_api_keys k WHERE k.id = s.finance_key_id AND k.role = 'finance' AND k.status = 'active'
                                AND (k.expires_at IS NULL OR k.expires_at > now()))
               END
             RETURNING s.role, s.csrf_token`,
      values: [sha256(id), CONSOLE_SESSION_IDLE_MS / SECOND_MS, adminKeyMac(id, this.adminApiKey)],
    });
    const row = rows[0];
    return row && { role: row.role, csrfToken: row.csrf_token };
  }

  async close(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await this.forget(request);
    this.setCookie(reply, CONSOLE_SESSION_COOKIE, '', 0);
  }

  /** Ended sessions are deleted from time to time (they are refused anyway). */
  async purge(): Promise<number> {
    const { rowCount } = await this.pool.query(
      'DELETE FROM gw_console_sessions WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(secs => $1)',
      [CONSOLE_SESSION_IDLE_MS / SECOND_MS],
    );
    return rowCount ?? 0;
  }

  /**
   * The sign-in form's CSRF token: a random value both in a cookie and in the form (double submit),
   * which another site can neither read nor set.
   */
  signInToken(request: FastifyRequest, reply: FastifyReply): string {
    const existing = readCookie(request, CONSOLE_SIGN_IN_CSRF_COOKIE);
    if (existing && TOKEN.test(existing)) return existing;
    const token = randomToken();
    this.setCookie(reply, CONSOLE_SIGN_IN_CSRF_COOKIE, token, CONSOLE_SESSION_IDLE_MS);
    return token;
  }

  setCookie(reply: FastifyReply, name: string, value: string, maxAgeMs: number): void {
    setConsoleCookie(reply, name, value, maxAgeMs, this.secure);
  }

  private async forget(request: FastifyRequest): Promise<void> {
    const id = readCookie(request, CONSOLE_SESSION_COOKIE);
    if (id && TOKEN.test(id)) await this.pool.query('DELETE FROM gw_console_sessions WHERE id_sha256 = $1', [sha256(id)]);
  }
}

/** HTTP-only, SameSite=Strict (no other site's link or form carries it), path /console, Secure unless told otherwise. */
export const setConsoleCookie = (reply: FastifyReply, name: string, value: string, maxAgeMs: number, secure: boolean): void => {
  const cookie = `${name}=${encodeURIComponent(value)}; Path=${CONSOLE_PATH}; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly;${secure ? ' Secure;' : ''} SameSite=Strict`;
  const previous = reply.getHeader('set-cookie');
  const cookies = previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
  void reply.header('set-cookie', [...cookies, cookie]);
};
