import pino, { type DestinationStream, type Logger } from 'pino';
import { logContextFields } from './log-context';
import { maskSecretFields, scrubSecrets } from './redaction';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];
export const DEFAULT_LOG_LEVEL: LogLevelName = 'info';

export const isLogLevel = (value: string): value is LogLevelName => (LOG_LEVELS as readonly string[]).includes(value);

/** Where JSON lines go: stdout by default; tests pass an object with `write(line)` that keeps them. */
export type LogDestination = DestinationStream;

export interface ProcessLoggerOptions {
  /** Names the process on every line (`gateway`, `payments`, …, or `all-in-one`). */
  app: string;
  level: LogLevelName;
  destination?: LogDestination;
}

/**
 * The process's logger: one JSON object per line with `time` (ISO 8601), `level` (its name), `app`,
 * `msg`, the ids of the work in hand (`request_id`, `correlation_id`, `integrator_id`, from the log
 * context) and the line's own fields; secrets masked (see redaction.ts).
 */
export function createProcessLogger({ app, level, destination }: ProcessLoggerOptions): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { app },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: maskSecretFields },
    mixin: logContextFields,
    serializers: { err: scrubbedError },
    hooks: {
      logMethod(args, method) {
        // Messages are built by the code that logs (interpolated errors, ids): masked before they are written.
        for (let i = 0; i < args.length; i++) if (typeof args[i] === 'string') args[i] = scrubSecrets(args[i] as string);
        method.apply(this, args);
      },
    },
  };
  // Without a destination pino writes to stdout asynchronously, flushed when the process exits.
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The logger of the host running in this process (set by the host once made), for the lines written
 * on hot paths without going through Nest's logger. Silent until then: library tests stay quiet.
 */
let hostLoggerInstance: Logger = pino({ level: 'silent' });
export const hostLogger = (): Logger => hostLoggerInstance;
export function useAsHostLogger(logger: Logger): void {
  hostLoggerInstance = logger;
}

/** Errors as pino serialises them (type, message, stack, own fields), with secret-shaped text masked. */
function scrubbedError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (typeof serialized !== 'object' || serialized === null) return serialized;
  for (const key of ['message', 'stack'] as const) {
    const value = serialized[key];
    if (typeof value === 'string') serialized[key] = scrubSecrets(value);
  }
  // An error's own fields (a driver's, say) are masked as a logged object's are.
  return maskSecretFields(serialized);
}
