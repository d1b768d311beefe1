import { createCustomer, createIntegrator, createPayment, DISTRIBUTED, startTestService, type Integrator, type TestService } from './harness';
import { Receiver } from './receiver';

/**
 * GET /metrics (docs/operations.md): every family is there, and a payment created and authorized, and
 * the webhook delivery it causes, move the counters they should. Every process is scraped and the
 * samples added up: the all-in-one service alone, or each app of the distributed topology on its own
 * port (each with the families of its own work).
 */
describe('Prometheus metrics', () => {
  let service: TestService;
  let shop: Integrator;
  let receiver: Receiver;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
  });

  /** Every process's exposition, one after the other. */
  const scrape = async (): Promise<string> => {
    const texts = await Promise.all(
      Object.values(service.processUrls()).map(async (url) => {
        const response = await fetch(`${url}/metrics`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        return response.text();
      }),
    );
    return texts.join('\n');
  };

  it('is text in the Prometheus format, open without an API key, with every family', async () => {
    const text = await scrape();
    const families = {
      http_requests_total: 'counter',
      http_request_duration_seconds: 'histogram',
      ledger_transfers_total: 'counter',
      event_store_appends_total: 'counter',
      event_store_append_conflicts_total: 'counter',
      webhook_delivery_attempts_total: 'counter',
      webhook_deliveries_due: 'gauge',
      webhook_oldest_due_delivery_age_seconds: 'gauge',
      bus_request_duration_seconds: 'histogram',
      bus_request_timeouts_total: 'counter',
      bus_messages_handled_total: 'counter',
      event_store_subscription_lag_seconds: 'gauge',
      // prom-client's default process and Node.js metrics
      process_cpu_user_seconds_total: 'counter',
      process_resident_memory_bytes: 'gauge',
      nodejs_eventloop_lag_seconds: 'gauge',
    };
    for (const [family, type] of Object.entries(families)) expect(text).toContain(`# TYPE ${family} ${type}\n`);
    // Seven apps, or more processes with several instances of some (E2E_INSTANCES).
    if (DISTRIBUTED) expect(Object.keys(service.processUrls()).length).toBeGreaterThanOrEqual(7);
  });

  it('a payment created and authorized, and its webhook delivered, move their counters', async () => {
    const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: shop.apiKey, body: { url: receiver.url, enabled_events: ['payment.succeeded'] } });
    expect(endpoint.status).toBe(201);
    const customer = await createCustomer(service, 5_000_000);
    const before = await scrape();

    const payment = await createPayment(service, shop);
    const authorized = await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer } });
    expect(authorized.body.status).toBe('succeeded');
    await receiver.waitFor(1);
    // The attempt is counted once recorded, just after the receiver answered.
    await eventually(async () => expect(sampleOf(await scrape(), 'webhook_delivery_attempts_total', { outcome: 'succeeded' })).toBeGreaterThan(sampleOf(before, 'webhook_delivery_attempts_total', { outcome: 'succeeded' })));
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string> = {}) => sampleOf(after, name, labels) - sampleOf(before, name, labels);
    expect(moved('http_requests_total', { route: '/v1/payments', method: 'POST', status: '201' })).toBe(1);
    expect(moved('http_requests_total', { route: '/v1/test_helpers/payments/:id/authorize', method: 'POST', status: '200' })).toBe(1);
    expect(moved('http_request_duration_seconds_count', { route: '/v1/payments', method: 'POST' })).toBe(1);
    expect(moved('http_request_duration_seconds_sum', { route: '/v1/payments', method: 'POST' })).toBeGreaterThan(0);
    expect(moved('bus_request_duration_seconds_count', { topic: 'payments.create' })).toBe(1);
    expect(moved('bus_request_duration_seconds_count', { topic: 'ledger.transfer' })).toBeGreaterThanOrEqual(1);
    expect(moved('bus_messages_handled_total', { topic: 'payments.create', outcome: 'ok' })).toBe(1);
    expect(moved('ledger_transfers_total', { outcome: 'applied' })).toBe(1);
    // Created, authorization started, authorization succeeded: one append each.
    expect(moved('event_store_appends_total')).toBeGreaterThanOrEqual(3);
    expect(moved('webhook_delivery_attempts_total', { outcome: 'succeeded' })).toBe(1);
    expect(sampleOf(after, 'bus_request_timeouts_total')).toBe(0);
    expect(sampleOf(after, 'event_store_append_conflicts_total')).toBe(0);

    // Read from PostgreSQL on scrape: numbers, not NaN (a failed read), nothing overdue here.
    expect(sampleOf(after, 'webhook_deliveries_due')).toBeGreaterThanOrEqual(0);
    expect(sampleOf(after, 'webhook_oldest_due_delivery_age_seconds')).toBeGreaterThanOrEqual(0);
    // Every subscription keeps up: its lag is about its poll interval.
    const lags = samples(after, 'event_store_subscription_lag_seconds');
    expect(lags.map((s) => s.labels['subscription'])).toEqual(expect.arrayContaining([expect.stringMatching(/payment/)]));
    for (const lag of lags) expect(lag.value).toBeLessThan(10);
  });

  it('counts requests no route matched under one label, not their paths', async () => {
    const before = await scrape();
    expect((await service.http('GET', '/no/such/route/abc123')).status).toBe(404);
    const after = await scrape();
    expect(sampleOf(after, 'http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }) - sampleOf(before, 'http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(after).not.toContain('abc123');
  });

  // The same code in both topologies: checked once, without starting seven more processes.
  (DISTRIBUTED ? describe.skip : describe)('with METRICS_TOKEN', () => {
    const token = 'metrics_token_for_the_tests_0123';
    let guarded: TestService;

    beforeAll(async () => {
      guarded = await startTestService({ METRICS_TOKEN: token });
    });
    afterAll(async () => {
      await guarded?.stop();
    });

    it('wants it as a bearer token: none or another is 401 in the contract shape', async () => {
      const refused: Record<string, string>[] = [{}, { Authorization: 'Bearer not_the_metrics_token_000' }, { Authorization: `Bearer ${guarded.adminKey}` }];
      for (const headers of refused) {
        const response = await guarded.http('GET', '/metrics', { headers });
        expect(response.status).toBe(401);
        expect(response.body.error.code).toBe('authentication_required');
      }
      const scraped = await fetch(`${guarded.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('# TYPE http_requests_total counter');
      // The scheme in any case (RFC 9110 11.1).
      expect((await fetch(`${guarded.url}/metrics`, { headers: { Authorization: `bearer ${token}` } })).status).toBe(200);
    });
  });
});

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** Every sample of one metric in a Prometheus text exposition. */
function samples(text: string, name: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}

/** The sum of a metric's samples that carry these labels (0 when there is none yet). */
function sampleOf(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text, name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

async function eventually(check: () => Promise<void>, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
