import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { groupRunsIn, troubleLines } from './ctrl-c';

/**
 * Ctrl-C on `npm start`: the terminal sends SIGINT to the whole process group. The service drains and
 * stops its embedded PostgreSQL itself, after its own work, so nothing it prints looks like trouble,
 * and it exits 0. Its start log says whether the sandbox is on and where the admin key is.
 */
describe('Ctrl-C on npm start', () => {
  const runs = groupRunsIn('pay-ctrl-c-');

  it('stops with no error or warning line, exit status 0, after a start log naming the sandbox and the admin key', async () => {
    const dataDir = runs.dataDir();
    const portFile = join(dataDir, 'port');
    const run = runs.start('apps/all-in-one/src/main.ts', { DATA_DIR: dataDir, PORT: '0', PORT_FILE: portFile, SANDBOX: 'true', LOG_LEVEL: 'info' });
    await run.waitFor(/sandbox on/, 90_000);
    expect(run.output()).toContain(`the admin API key is in ${join(dataDir, 'admin-api-key')}`);
    // Some work first, so that the background work (subscriptions, sweeps, the clock) is under way.
    const url = `http://127.0.0.1:${(await readFile(portFile, 'utf8')).trim()}`;
    const adminKey = (await readFile(join(dataDir, 'admin-api-key'), 'utf8')).trim();
    const integrator = await fetch(`${url}/admin/v1/integrators`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Ctrl-C shop' }),
    });
    expect(integrator.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    run.ctrlC();
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(troubleLines(run.output())).toEqual([]);
    expect(run.output()).toContain('SIGINT: shutting down');
  }, 150_000);
});
