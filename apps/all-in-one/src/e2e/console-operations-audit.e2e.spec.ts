import { consolePost, consoleSession } from './console-checks';
import { createIntegrator, createPayment, startTestService, type TestService } from './harness';
import { Receiver } from './receiver';

// A service on a busy machine: generous bounds.
jest.setTimeout(300_000);

/**
 * Every console action is in the audit trail exactly once (actor admin): an event's redelivery from an
 * object's page, the bulk redelivery of failed deliveries, the replay of parked events.
 */
describe('console: redeliveries and replays are audited, once each', () => {
  let service: TestService;
  let receiver: Receiver;

  beforeAll(async () => {
    service = await startTestService();
    receiver = await new Receiver().start();
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  const audited = async (action: string): Promise<any[]> => {
    const response = await service.admin('GET', `/admin/v1/audit_events?action=${action}&limit=100`);
    expect(response.status).toBe(200);
    return response.body.data;
  };
  const admin = { type: 'admin', id: null };

  it('an event redelivered from its object’s page', async () => {
    const integrator = await createIntegrator(service);
    const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: integrator.apiKey, body: { url: receiver.url, enabled_events: ['*'] } });
    expect(endpoint.status).toBe(201);
    const payment = await createPayment(service, integrator);
    // A status change is an event (payment.canceled).
    expect((await service.http('POST', `/v1/payments/${payment.id}/cancel`, { key: integrator.apiKey })).status).toBe(200);
    const session = await consoleSession(service.url, service.adminKey);
    const page = await (await fetch(`${service.url}/console/objects/${payment.id}`, { headers: { Cookie: session.cookie } })).text();
    const eventId = /evt_[0-9A-Za-z]+/.exec(page)?.[0] ?? '';
    expect(eventId).toMatch(/^evt_/);
    const done = await consolePost(service.url, `/console/objects/${payment.id}/redeliver`, session.cookie, { csrf: session.csrf, event: eventId });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toMatch(/done=redelivered/);
    const events = await audited('event.redelivered');
    expect(events).toEqual([
      expect.objectContaining({ action: 'event.redelivered', actor: admin, integrator: integrator.id, target: { object: 'event', id: eventId }, request_id: expect.stringMatching(/^req_/) }),
    ]);
    // A refused one (an event of no such object) records nothing.
    const refused = await consolePost(service.url, `/console/objects/${payment.id}/redeliver`, session.cookie, { csrf: session.csrf, event: 'evt_000000000000000000000000' });
    expect(refused.status).toBe(404);
    expect(await audited('event.redelivered')).toHaveLength(1);
  });

  it('the failed deliveries redelivered (all, then one endpoint’s) and the parked events replayed', async () => {
    const integrator = await createIntegrator(service);
    const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: integrator.apiKey, body: { url: receiver.url, enabled_events: ['*'] } });
    expect(endpoint.status).toBe(201);
    const endpointId: string = endpoint.body.id;
    const session = await consoleSession(service.url, service.adminKey);
    const all = await consolePost(service.url, '/console/operations/redeliver', session.cookie, { csrf: session.csrf });
    expect(all.status).toBe(303);
    const one = await consolePost(service.url, '/console/operations/redeliver', session.cookie, { csrf: session.csrf, endpoint: endpointId });
    expect(one.status).toBe(303);
    const redelivered = await audited('failed_deliveries.redelivered');
    expect(redelivered).toEqual([
      expect.objectContaining({ actor: admin, integrator: null, target: { object: 'webhook_endpoint', id: endpointId } }),
      expect.objectContaining({ actor: admin, integrator: null, target: { object: 'operation', id: expect.stringMatching(/^opr_[0-9A-Za-z]{20,}$/) } }),
    ]);
    const replay = await consolePost(service.url, '/console/operations/replay', session.cookie, { csrf: session.csrf });
    expect(replay.status).toBe(303);
    expect(await audited('parked_events.replayed')).toEqual([
      expect.objectContaining({ actor: admin, integrator: null, target: { object: 'operation', id: expect.stringMatching(/^opr_[0-9A-Za-z]{20,}$/) } }),
    ]);
  });
});
