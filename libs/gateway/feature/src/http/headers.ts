/** Cache-Control of every answer that carries a secret (an API key, a signing secret): no cache, no proxy keeps it. */
export const NO_STORE = 'no-store';
