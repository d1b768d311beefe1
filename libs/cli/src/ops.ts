import { PaymentsAdmin } from '@pay/sdk';
import { CELL_CHARS_MAX, OPS_ROWS_MAX } from './limits';
import { UsageError, type Settings } from './settings';

export interface OpsFlags {
  replay?: boolean;
  subscription?: string;
  event?: string;
  endpoint?: string;
  redeliver?: boolean;
}

interface OpsIo {
  out(line: string): void;
  err(line: string): void;
}

export const OPS_COMMANDS = ['subscriptions', 'parked', 'deliveries', 'endpoints'] as const;

/** `payments ops <what>`: the operator's view, with the admin key. */
export async function ops(what: string | undefined, flags: OpsFlags, settings: Settings, io: OpsIo): Promise<number> {
  if (!settings.adminKey) throw new UsageError('no admin key: set PAY_ADMIN_KEY or pass --admin-key (npm start keeps it in .data/admin-api-key)');
  const operations = new PaymentsAdmin({ adminKey: settings.adminKey, baseUrl: settings.baseUrl }).operations;
  switch (what) {
    case 'subscriptions': {
      const { data, errors } = await operations.subscriptions();
      io.out(table(['SUBSCRIPTION', 'CHECKPOINT', 'UPDATED', 'LAG S', 'PARKED', 'RUNNING'], data.map((s) => [s.id, s.checkpoint, s.checkpoint_updated_at, s.lag_seconds, s.parked_events, s.running ? 'yes' : 'no'])));
      return reportAppErrors(errors, io);
    }
    case 'parked': {
      if (flags.event !== undefined && flags.subscription === undefined) throw new UsageError('--event needs --subscription (the subscription it is parked in)');
      if (!flags.replay) {
        if (flags.event !== undefined || flags.subscription !== undefined) throw new UsageError('--subscription and --event go with --replay');
        const { data, errors } = await operations.parkedEvents({ limit: OPS_ROWS_MAX });
        io.out(table(['SUBSCRIPTION', 'EVENT', 'TYPE', 'PARKED AT', 'ERROR'], data.map((p) => [p.subscription, p.event, p.type, p.parked_at, firstLine(p.error)])));
        return reportAppErrors(errors, io);
      }
      const replay = await operations.replayParked({
        ...(flags.subscription === undefined ? {} : { subscription_id: flags.subscription }),
        ...(flags.event === undefined ? {} : { event_id: flags.event }),
      });
      io.out(`Replayed ${replay.replayed} parked event${replay.replayed === 1 ? '' : 's'}; ${replay.failed.length} failed again.`);
      if (replay.failed.length > 0) io.out(table(['SUBSCRIPTION', 'EVENT', 'ERROR'], replay.failed.map((f) => [f.subscription, f.event, firstLine(f.error)])));
      return Math.max(replay.failed.length > 0 ? 1 : 0, reportAppErrors(replay.errors, io));
    }
    case 'deliveries': {
      if (flags.redeliver) {
        const { redelivered } = await operations.redeliverFailed(flags.endpoint === undefined ? {} : { endpoint_id: flags.endpoint });
        io.out(`Redelivered ${redelivered} failed deliver${redelivered === 1 ? 'y' : 'ies'}${flags.endpoint ? ` of ${flags.endpoint}` : ''}.`);
        return 0;
      }
      const page = await operations.failedDeliveries({ limit: OPS_ROWS_MAX, ...(flags.endpoint === undefined ? {} : { endpoint_id: flags.endpoint }) }).page();
      io.out(table(['DELIVERY', 'ENDPOINT', 'EVENT', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST ATTEMPT', 'LAST ERROR'], page.data.map((d) => [d.id, d.endpoint, d.event, d.event_type, d.status, d.attempts, d.last_attempt_at, d.last_error])));
      if (page.has_more) io.err(`(the newest ${OPS_ROWS_MAX}; more in GET /admin/v1/operations/failed_deliveries?starting_after=…)`);
      return 0;
    }
    case 'endpoints': {
      const { data, has_more: more } = await operations.failingEndpoints({ limit: OPS_ROWS_MAX });
      io.out(table(['ENDPOINT', 'INTEGRATOR', 'URL', 'FAILING SINCE', 'FLAGGED'], data.map((e) => [e.id, e.integrator, e.url, e.failing_since, e.flagged ? 'FLAGGED' : ''])));
      if (more) io.err(`(the ${OPS_ROWS_MAX} failing longest)`);
      return 0;
    }
    default:
      throw new UsageError(`ops needs one of ${OPS_COMMANDS.join(', ')}`);
  }
}

/** Apps that did not answer are named on stderr, and the command exits 1: the table is incomplete. */
function reportAppErrors(errors: { app: string; code: string; message: string }[], io: OpsIo): number {
  for (const error of errors) io.err(`payments: ${error.app} did not answer (${error.code}: ${error.message})`);
  return errors.length > 0 ? 1 : 0;
}

const firstLine = (text: string): string => text.split('\n', 1)[0] ?? '';

/** Columns padded to their widest cell; `(none)` for no rows. */
export function table(header: string[], rows: unknown[][]): string {
  if (rows.length === 0) return '(none)';
  const cells = [header, ...rows.map((row) => row.map(cell))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return cells.map((row) => row.map((value, column) => (column === row.length - 1 ? value : value.padEnd(widths[column]!))).join('  ')).join('\n');
}

const cell = (value: unknown): string => {
  const text = value === null || value === undefined ? '-' : String(value);
  return text.length > CELL_CHARS_MAX ? `${text.slice(0, CELL_CHARS_MAX - 1)}…` : text;
};
