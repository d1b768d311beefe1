import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

describe('start-up configuration', () => {
  it('a bad environment is refused before anything starts, every problem listed, exit status 2', () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'tools', 'run.js'), join(ROOT, 'apps', 'all-in-one', 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: 'eighty',
        SANDBOX: 'maybe',
        DATABASE_URL: 'mysql://nope',
        FEE_SCHEDULE: '{"payment":{"EUR":{}}}',
        ADMIN_API_KEY: 'short',
        LOG_LEVEL: 'chatty',
        METRICS_TOKEN: 'short-token',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('invalid configuration');
    for (const variable of ['PORT', 'SANDBOX', 'DATABASE_URL', 'FEE_SCHEDULE', 'ADMIN_API_KEY', 'LOG_LEVEL', 'METRICS_TOKEN']) expect(result.stderr).toContain(variable);
    // A credential given wrong is named, never echoed.
    expect(result.stderr).not.toContain('short-token');
  });
});
