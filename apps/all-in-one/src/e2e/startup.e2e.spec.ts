import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

  const start = (env: Record<string, string>) => {
    const { ADMIN_API_KEY: _ignored, DATABASE_URL: _alsoIgnored, ...inherited } = process.env;
    return spawnSync(process.execPath, [join(ROOT, 'tools', 'run.js'), join(ROOT, 'apps', 'all-in-one', 'src', 'main.ts')], {
      cwd: ROOT,
      env: { ...inherited, PORT: '0', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
  };

  it.each(['/dev/null/x', '/proc/1/nope'])('DATA_DIR=%s that cannot be made a directory: exit status 2 and one clear line, at once', (dataDir) => {
    const result = start({ DATA_DIR: dataDir });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`DATA_DIR ${dataDir}`);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack
  });

  it('a start refused because DATA_DIR is in use writes and prints no admin key', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pay-in-use-'));
    // This (live) process holds the DATA_DIR as a running service would.
    writeFileSync(join(dataDir, 'service.pid'), `${process.pid}\n`);
    const result = start({ DATA_DIR: dataDir });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('in use');
    expect(result.stdout).not.toContain('admin API key');
    expect(existsSync(join(dataDir, 'admin-api-key'))).toBe(false);
  });
});
