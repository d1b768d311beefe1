import { ensureDatabase } from '@pay/platform';
import { randomBytes } from 'node:crypto';

/** A fresh, empty database on the run's PostgreSQL, for one test file. */
export async function createTestDatabase(label = 'test'): Promise<string> {
  const base = process.env['TEST_DATABASE_URL'];
  if (!base) throw new Error('TEST_DATABASE_URL is not set: run the tests through jest (its global setup starts PostgreSQL)');
  const url = new URL(base);
  url.pathname = `/${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  await ensureDatabase(url.toString());
  return url.toString();
}
