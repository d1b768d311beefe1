import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvReader } from '@pay/kernel';
import { DataDirInUseError } from '@pay/platform';
import { readGatewayConfig } from './gateway.config';

describe('the generated admin key', () => {
  const generate = (dataDir: string, embeddedDatabase = true) => {
    const printed: string[] = [];
    const config = readGatewayConfig(new EnvReader({}), { dataDir, sandbox: false, publicBaseUrl: 'https://pay.example', embeddedDatabase }, (line) => printed.push(line));
    return { key: config.adminApiKey, printed: printed.join('\n') };
  };

  it('is printed once, at the start that generates it, and kept in DATA_DIR', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pay-admin-key-'));
    const first = generate(dataDir);
    expect(readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim()).toBe(first.key);
    expect(first.printed).toContain(first.key);
    const second = generate(dataDir);
    expect(second.key).toBe(first.key);
    expect(second.printed).toBe('');
  });

  describe('on a DATA_DIR another live process has locked (its service.pid)', () => {
    let holder: ReturnType<typeof spawn>;
    let dataDir: string;
    beforeEach(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'pay-admin-key-'));
      holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
      writeFileSync(join(dataDir, 'service.pid'), `${holder.pid}\n`);
    });
    afterEach(() => holder.kill());

    it('a start that would run the embedded PostgreSQL there is refused, and makes no key', () => {
      expect(() => generate(dataDir, true)).toThrow(DataDirInUseError);
      expect(() => readFileSync(join(dataDir, 'admin-api-key'))).toThrow(/ENOENT/);
    });

    it('a gateway on an external database (beside the launcher of a distributed topology) makes the key, printed once', () => {
      const first = generate(dataDir, false);
      expect(first.printed).toContain(first.key);
      expect(readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim()).toBe(first.key);
      expect(generate(dataDir, false)).toEqual({ key: first.key, printed: '' });
    });
  });
});
