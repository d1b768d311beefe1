import { setFlagsFromString } from 'node:v8';
import { Logger } from '@nestjs/common';
import { ConfigError, HEAP_GROWING_PERCENT, OperatorError } from '@pay/kernel';

/**
 * A process's main: start, then stop gracefully on SIGTERM, SIGINT or SIGHUP (exit 0). A configuration
 * problem exits 2 with its message, any other start failure exits 1: said as plain text on stderr,
 * since no logger runs yet. Once started, the process logs JSON lines, its shutdown too.
 */
export function runMain(start: () => Promise<{ stop(): Promise<void> }>): void {
  boundHeapGrowth();
  start().then(
    (running) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        const logger = new Logger('shutdown');
        logger.log(`${signal}: shutting down`);
        running.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error(`shutdown failed: ${String(error)}`);
            process.exit(1);
          },
        );
      };
      // SIGHUP: the terminal closed; the embedded PostgreSQL, in a process group of its own, is stopped too.
      for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));
    },
    (error: unknown) => {
      if (error instanceof ConfigError) {
        process.stderr.write(`${error.message}\n`);
        process.exit(2);
      }
      if (error instanceof OperatorError) {
        process.stderr.write(`failed to start: ${error.message}\n`);
        process.exit(1);
      }
      process.stderr.write(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}

/**
 * The old generation collected at HEAP_GROWING_PERCENT over what survived, unless node was given its own
 * `--heap-growing-percent`. V8 reads the flag at each collection, so setting it at start takes effect.
 */
function boundHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
