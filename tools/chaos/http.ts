/** A small JSON client for the chaos run: every call bounded in time, network failures as status 0. */

export interface Answer<T = any> {
  status: number;
  body: T;
}

export const REQUEST_TIMEOUT_MS = 20_000;

export type Call = (method: string, path: string, options?: { key?: string; body?: unknown; idempotencyKey?: string }) => Promise<Answer>;

export const client =
  (baseUrl: () => string): Call =>
  async (method, path, { key, body, idempotencyKey } = {}) => {
    try {
      const response = await fetch(`${baseUrl()}${path}`, {
        method,
        headers: {
          ...(key ? { Authorization: `Bearer ${key}` } : {}),
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: response.status, body: parsed };
    } catch (error) {
      return { status: 0, body: String(error) };
    }
  };

/** A failure an integrator retries (the process is down, restarting, or a dependency is): same call, same key. */
export const isRetryable = (answer: Answer): boolean => answer.status === 0 || answer.status >= 500 || answer.body?.error?.code === 'idempotency_key_in_use';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Calls until the answer is not retryable, or `deadlineMs` has passed (the last answer is returned then). */
export async function untilAnswered(call: () => Promise<Answer>, deadlineMs: number): Promise<Answer> {
  const deadline = Date.now() + deadlineMs;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    const answer = await call();
    if (!isRetryable(answer) || Date.now() > deadline) return answer;
    await sleep(wait);
  }
}
