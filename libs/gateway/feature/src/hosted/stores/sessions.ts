import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { HOSTED_SESSION_TTL_MS, SECOND_MS } from '@pay/kernel';
import { formOf, sameToken } from '../forms';

export type SessionKind = 'customer' | 'business_user' | 'agent';

export interface Session {
  kind: SessionKind;
  subjectId: string;
  /** The object the session was opened for (a payment page's payment); null for an agent's session. */
  objectId: string | null;
  csrfToken: string;
}

export const SESSION_COOKIE = 'pay_session';
export const SIGN_IN_CSRF_COOKIE = 'pay_csrf';
/** The language chosen with the switch, remembered for a year (a preference, not a secret). */
export const LANGUAGE_COOKIE = 'pay_lang';

const randomToken = (): string => randomBytes(32).toString('base64url');
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Hosted-page sessions in PostgreSQL; the browser holds only a random token in an HTTP-only cookie. */
export class SessionStore {
  constructor(private readonly pool: Pool) {}

  async open(reply: FastifyReply, session: Omit<Session, 'csrfToken'>): Promise<Session> {
    const token = randomToken();
    const csrfToken = randomToken();
    await this.pool.query(
      `INSERT INTO gw_sessions (token_sha256, kind, subject_id, object_id, csrf_token, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
      [sha256(token), session.kind, session.subjectId, session.objectId, csrfToken, HOSTED_SESSION_TTL_MS / SECOND_MS],
    );
    setCookie(reply, SESSION_COOKIE, token, HOSTED_SESSION_TTL_MS);
    return { ...session, csrfToken };
  }

  async current(request: FastifyRequest): Promise<Session | undefined> {
    const token = readCookie(request, SESSION_COOKIE);
    if (!token) return undefined;
    const { rows } = await this.pool.query<{ kind: SessionKind; subject_id: string; object_id: string | null; csrf_token: string }>(
      'SELECT kind, subject_id, object_id, csrf_token FROM gw_sessions WHERE token_sha256 = $1 AND expires_at > now()',
      [sha256(token)],
    );
    const row = rows[0];
    return row && { kind: row.kind, subjectId: row.subject_id, objectId: row.object_id, csrfToken: row.csrf_token };
  }

  async close(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = readCookie(request, SESSION_COOKIE);
    if (token) await this.pool.query('DELETE FROM gw_sessions WHERE token_sha256 = $1', [sha256(token)]);
    setCookie(reply, SESSION_COOKIE, '', 0);
  }
}

/**
 * Sign-in forms are posted before any session exists: their CSRF token is a random value both in a
 * cookie and in the form (double submit), which another site can neither read nor set.
 */
export const signInCsrfToken = (request: FastifyRequest, reply: FastifyReply): string => {
  const existing = readCookie(request, SIGN_IN_CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomToken();
  setCookie(reply, SIGN_IN_CSRF_COOKIE, token, HOSTED_SESSION_TTL_MS);
  return token;
};

/** A sign-in form's fields, when it carries the token of its double-submit cookie; else undefined (the form expired). */
export const signInFormOf = (body: unknown, request: FastifyRequest): URLSearchParams | undefined => {
  const form = formOf(body);
  return form && sameToken(form.get('csrf'), readCookie(request, SIGN_IN_CSRF_COOKIE)) ? form : undefined;
};

export const readCookie = (request: FastifyRequest, name: string): string | undefined => {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeCookieValue(value.join('='));
  }
  return undefined;
};

/** A cookie we did not set (malformed percent-encoding) is as good as no cookie. */
const decodeCookieValue = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};

/** Secure (browsers accept it on localhost too), HTTP-only, SameSite=Lax: never sent by another site's form post. */
export const setCookie = (reply: FastifyReply, name: string, value: string, maxAgeMs: number): void => {
  const cookie = `${name}=${encodeURIComponent(value)}; Path=/hosted; Max-Age=${Math.floor(maxAgeMs / 1000)}; HttpOnly; Secure; SameSite=Lax`;
  const previous = reply.getHeader('set-cookie');
  const cookies = previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
  void reply.header('set-cookie', [...cookies, cookie]);
};
