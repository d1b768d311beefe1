import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOrCreateSecretFile } from './secret-file';

describe('readOrCreateSecretFile', () => {
  const fileIn = () => join(mkdtempSync(join(tmpdir(), 'pay-secret-')), 'nested', 'secret');

  it('makes the secret once, readable by its owner only; later calls read it', () => {
    const file = fileIn();
    expect(readOrCreateSecretFile(file, () => 'first')).toEqual({ secret: 'first', created: true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readOrCreateSecretFile(file, () => 'second')).toEqual({ secret: 'first', created: false });
  });

  it("another process's secret linked first wins: this one reads it, says it did not create it, and leaves no draft", () => {
    const file = fileIn();
    const made = readOrCreateSecretFile(file, () => {
      writeFileSync(file, 'the other process', { mode: 0o600 }); // it wins the race meanwhile
      return 'this process';
    });
    expect(made).toEqual({ secret: 'the other process', created: false });
    expect(readdirSync(join(file, '..'))).toEqual(['secret']);
  });
});
