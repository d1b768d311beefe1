import { ADMIN_REQUEST_TIMEOUT_MS } from './limits';
import { addressHint } from './settings';

/** The few admin calls bootstrap needs (the SDK covers /v1 only): JSON over fetch with the admin key. */
export class AdminClient {
  constructor(
    private readonly baseUrl: string,
    private readonly adminKey: string,
  ) {}

  /**
   * Whether the service runs with its sandbox on: its test helpers exist (asked without a key: 401),
   * or not (404). Any other answer, or one without the service's error shape, is another server.
   */
  async isSandbox(): Promise<boolean> {
    const path = '/v1/test_helpers/clock';
    const { response, answer } = await this.call(path, {});
    if (response.status === 401 && answer?.error?.code === 'authentication_required') return true;
    if (response.status === 404 && answer?.error?.code === 'resource_not_found') return false;
    throw new Error(`GET ${path} got HTTP ${response.status}: not the payments service; ${addressHint(this.baseUrl)}`);
  }

  async post<T = Record<string, unknown>>(path: string, body: object): Promise<T> {
    const { response, answer } = await this.call(path, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.adminKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    // An answer that is not the service's (not JSON, or an error without its shape): another server there.
    if (answer === undefined || (!response.ok && !answer.error)) {
      throw new Error(`POST ${path} got HTTP ${response.status}${answer === undefined ? ', not JSON' : ''}: not the payments service; ${addressHint(this.baseUrl)}`);
    }
    if (!response.ok) {
      const reason = answer?.error ? `${answer.error.code}: ${answer.error.message}` : `HTTP ${response.status}`;
      throw new Error(`POST ${path} failed (${reason})${response.status === 401 ? ': check the admin key (PAY_ADMIN_KEY or .data/admin-api-key)' : ''}`);
    }
    return answer as T;
  }

  /** One request, its answer read as JSON (undefined when it is not); an unreachable service names how to point elsewhere. */
  private async call(path: string, init: RequestInit): Promise<{ response: Response; answer: { error?: { code?: string; message?: string } } | undefined }> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(ADMIN_REQUEST_TIMEOUT_MS) });
    } catch (error) {
      throw new Error(`cannot reach the service (${(error as Error).message}): ${addressHint(this.baseUrl)}`);
    }
    const answer = (await response.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
    return { response, answer };
  }
}
