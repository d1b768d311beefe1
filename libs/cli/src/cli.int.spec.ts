import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { runCli, type Io } from './cli';

/**
 * The CLI against the wrong address: nothing listening there, or another server. Every such error says
 * which address was used and how to set another (--base-url, PAY_BASE_URL). And `listen`, polling for
 * a while, adds no listener per poll (no MaxListenersExceededWarning).
 */
const io = (env: NodeJS.ProcessEnv, signal = new AbortController().signal) => {
  const lines: string[] = [];
  const value: Io = { out: (line) => lines.push(line), err: (line) => lines.push(line), env, cwd: '/nonexistent', signal };
  return { io: value, text: () => lines.join('\n') };
};

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));

/** A port with nothing behind it: taken, then released. */
const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe('the CLI names the way to point it elsewhere', () => {
  let nothing: string;
  let other: Server;
  let otherUrl: string;
  let events: Server;
  let eventsUrl: string;

  beforeAll(async () => {
    nothing = `http://127.0.0.1:${await closedPort()}`;
    other = createServer((_, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    otherUrl = await listen(other);
    events = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_test' }).end('{"object":"list","data":[],"has_more":false}'));
    eventsUrl = await listen(events);
  });
  afterAll(async () => {
    await new Promise((resolve) => other.close(resolve));
    await new Promise((resolve) => events.close(resolve));
  });

  const expectHint = (text: string, baseUrl: string) => {
    expect(text).toContain(baseUrl);
    expect(text).toContain('--base-url');
    expect(text).toContain('PAY_BASE_URL');
  };

  it.each([
    ['bootstrap', ['bootstrap', '--admin-key', 'admin_x']],
    ['listen', ['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--api-key', 'sk_x']],
    ['trigger', ['trigger', 'payment.succeeded', '--api-key', 'sk_x']],
    ['ops', ['ops', 'subscriptions', '--admin-key', 'admin_x']],
  ])('%s, with nothing at the address and with another server there', async (_, argv) => {
    for (const baseUrl of [nothing, otherUrl]) {
      const run = io({ PAY_BASE_URL: baseUrl, PAY_MERCHANT: 'conn_x', PAY_CUSTOMER: 'cus_x' });
      expect(await runCli(argv, run.io)).toBe(1);
      expectHint(run.text(), baseUrl);
    }
  }, 60_000);

  it('a file it cannot read is a usage error (exit 2), for every command that reads one', async () => {
    for (const argv of [['payouts', 'import-statement', '/nonexistent/statement.xml'], ['ledger', 'verify', '/nonexistent/export.ndjson']]) {
      const run = io({ PAY_BASE_URL: nothing, PAY_ADMIN_KEY: 'admin_x' });
      expect([argv.join(' '), await runCli(argv, run.io)]).toEqual([argv.join(' '), 2]);
      expect(run.text()).toContain('cannot read /nonexistent/');
    }
  });

  it('listen polls without piling listeners on its signal', async () => {
    const stop = new AbortController();
    const run = io({ PAY_BASE_URL: eventsUrl, PAY_API_KEY: 'sk_x' }, stop.signal);
    const done = runCli(['listen', '--forward-to', 'http://127.0.0.1:9/hooks'], run.io);
    // Four polls or more (one a second): one listener a poll would be four here, and past ten Node warns.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    const listeners = getEventListeners(stop.signal, 'abort').length;
    stop.abort();
    expect(await done).toBe(0);
    expect(listeners).toBeLessThanOrEqual(1);
    expect(run.text()).toContain('Ready.');
  }, 60_000);
});
