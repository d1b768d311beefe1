/** A small JSON-over-fetch client for the untimed parts of the bench (setup, pre-creation, checks). */
export interface JsonResponse {
  status: number;
  // The service's JSON, read field by field by the callers.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  key: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export async function call(baseUrl: string, method: string, path: string, { key, body, headers = {} }: CallOptions): Promise<JsonResponse> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: kept as text for the error message */
  }
  return { status: response.status, body: parsed };
}

/** Like call, but anything other than the expected status breaks the run: setup must not half-work. */
export async function expectCall(baseUrl: string, method: string, path: string, expected: number, options: CallOptions): Promise<JsonResponse> {
  const response = await call(baseUrl, method, path, options);
  if (response.status !== expected) {
    throw new Error(`${method} ${path}: expected ${expected}, got ${response.status} ${JSON.stringify(response.body).slice(0, 500)}`);
  }
  return response;
}

/** Runs fn over items with at most `concurrency` in flight; results keep the items' order. */
export async function mapConcurrent<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
