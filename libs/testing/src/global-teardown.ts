import type { RunningDatabase } from '@pay/platform';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __testDatabase?: RunningDatabase }).__testDatabase?.stop();
}
