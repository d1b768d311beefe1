import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvReader } from '@pay/kernel';
import { readGatewayConfig } from './gateway.config';

describe('the generated admin key', () => {
  const generate = (dataDir: string) => {
    const printed: string[] = [];
    const config = readGatewayConfig(new EnvReader({}), { dataDir, sandbox: false, publicBaseUrl: 'https://pay.example' }, (line) => printed.push(line));
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
});
