import { rm } from 'node:fs/promises';
import type { RunningDatabase } from '@pay/platform';

export default async function globalTeardown(): Promise<void> {
  const { __testDatabase: db, __testDatabaseDir: dir } = globalThis as { __testDatabase?: RunningDatabase; __testDatabaseDir?: string };
  await db?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}
