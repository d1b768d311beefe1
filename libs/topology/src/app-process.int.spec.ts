import { createServer, type Server } from 'node:http';
import { AppProcess } from './app-process';

/**
 * AppProcess on a stand-in app (fixtures/port-file-app.ts): the port comes from the process itself,
 * so what answers on it is the process started, never another one that was there first.
 */
const FIXTURE = 'libs/topology/src/fixtures/port-file-app.ts';
const START_TIMEOUT_MS = 30_000;

const readyBody = async (url: string): Promise<{ app: string; pid: number }> => (await fetch(`${url}/ready`)).json() as Promise<{ app: string; pid: number }>;

describe('an app process', () => {
  let app: AppProcess | undefined;
  let impostor: Server | undefined;
  afterEach(async () => {
    await app?.kill('SIGTERM');
    await new Promise((resolve) => (impostor ? impostor.close(resolve) : resolve(undefined)));
    app = impostor = undefined;
  });

  it('listens on a port the system picks, learns it from the process, and keeps it when started again', async () => {
    app = new AppProcess('stand-in', FIXTURE, {}, false, START_TIMEOUT_MS);
    await app.start();
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await readyBody(app.url)).toEqual({ app: 'port-file-app', pid: app.pid });
    const url = app.url;

    await app.kill('SIGTERM');
    await app.start();
    expect(app.url).toBe(url);
    expect(await readyBody(app.url)).toEqual({ app: 'port-file-app', pid: app.pid });
  });

  it('is not fooled by another server already answering /ready on its port: its start fails, saying why', async () => {
    impostor = createServer((_request, response) => response.end('{"app":"impostor"}'));
    await new Promise<void>((resolve) => impostor!.listen(0, '127.0.0.1', resolve));
    const port = (impostor.address() as { port: number }).port;
    expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);

    app = new AppProcess('stand-in', FIXTURE, { PORT: String(port) }, false, START_TIMEOUT_MS);
    await expect(app.start()).rejects.toThrow(/stand-in exited during start:[\s\S]*cannot listen: listen EADDRINUSE/);
  });
});
