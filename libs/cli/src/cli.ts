import { parseArgs } from 'node:util';
import { Payments, PaymentsError, type Currency } from '@pay/sdk';
import { bootstrap, exportLines } from './bootstrap';
import { EventForwarder, newLocalSecret, type Forwarded } from './listen';
import { ledger } from './ledger';
import { audit, keys } from './keys';
import { ops } from './ops';
import { addressHint, DEFAULT_BASE_URL, readSettings, requireApiKey, UsageError, type Settings } from './settings';
import { adminClient, payouts } from './payouts';
import { trigger, TRIGGER_TYPES } from './trigger';

export interface Io {
  /** Machine-readable output (bootstrap's exports, listen's lines). */
  out(line: string): void;
  /** What a person reads: progress, notes, errors. */
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Stops `listen` (SIGINT in the terminal). */
  signal: AbortSignal;
}

export const USAGE = `Usage: npx payments <command> [options]

  bootstrap                     create a sandbox integrator, its connections, a funded customer and
                                business, a beneficiary and a cash point; prints shell exports:
                                  eval "$(npx payments bootstrap)"
      --currency DZD|MAD|TND|XOF  (default DZD)   --name "My shop"
      --admin-key KEY             (default PAY_ADMIN_KEY, or .data/admin-api-key)

  listen --forward-to URL       follow your events and POST each one, signed with a local secret
                                (printed at start), to a receiver on your machine
      --events a,b              only these types       --from evt_…   replay from this event on
      --secret whsec_…          sign with this secret (default: a new one, or PAY_WEBHOOK_SECRET)

  trigger <type> [<type>…]      make an event happen in the sandbox and wait until it is listed:
                                ${TRIGGER_TYPES.join(', ')}

  keys list                     your API keys: scopes, redacted secret, status, expiry, last use
  keys create --name N --scopes payments:write,refunds:read [--expires-at T]
                                a restricted key (--scopes "*": every scope); prints its secret once
  keys roll key_… [--expires-in S]  a new secret; the old one works S seconds more (default 0)
  keys revoke key_…             the key gets 401 from now on
  audit [--action A] [--since T]  your audit trail, newest first (keys, endpoints, refunds, …)
      --all [--integrator int_…]  every integrator's, with the admin key

  ops subscriptions             (operators, admin key) every app's subscriptions: checkpoint, lag, parked
  ops parked                    parked (poison) events and their error
      --replay [--subscription ID [--event ID]]   replay all, one subscription's, or one event
  ops deliveries [--endpoint ID] failed and retrying webhook deliveries, newest first
      --redeliver                 send every failed one (of that endpoint, or all) again now
  ops endpoints                 enabled endpoints failing now, oldest first; FLAGGED past an hour
      --admin-key KEY             (default PAY_ADMIN_KEY, or .data/admin-api-key)

  ledger verify FILE            (finance) check a ledger chain export (GET /admin/v1/ledger/chain/export)
                                offline: every hash and the head's signature; exit 1 naming the first
                                sequence that does not hold
      --public-key PEM_FILE       check the signature with this key (one of GET /admin/v1/ledger/signing_keys
                                  kept apart), not the one the export carries
  payouts create                (API key) a payout from one of your connections to its bank account
      --connection conn_… --bank-account ba_… --amount MINOR --currency CUR [--description TEXT]
  payouts batch --currency CUR  (finance, admin key) every pending payout of the currency, now in transit
  payouts file pob_… [--out F]  the batch's pain.001.001.09 file for the bank
  payouts import-statement F    apply the bank's camt.053.001.08 statement (file F): paid, returned, unmatched

Every command: --base-url URL (default PAY_BASE_URL or http://127.0.0.1:3000),
               --api-key sk_… (default PAY_API_KEY; not needed by bootstrap)`;

const OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'admin-key': { type: 'string' },
  currency: { type: 'string' },
  name: { type: 'string' },
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  from: { type: 'string' },
  secret: { type: 'string' },
  replay: { type: 'boolean' },
  subscription: { type: 'string' },
  event: { type: 'string' },
  endpoint: { type: 'string' },
  redeliver: { type: 'boolean' },
  'public-key': { type: 'string' },
  connection: { type: 'string' },
  'bank-account': { type: 'string' },
  amount: { type: 'string' },
  description: { type: 'string' },
  out: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  'expires-in': { type: 'string' },
  action: { type: 'string' },
  since: { type: 'string' },
  integrator: { type: 'string' },
  all: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const CURRENCIES = ['DZD', 'MAD', 'TND', 'XOF'];

/** Runs one command: 0 done, 1 failed, 2 bad usage. */
export async function runCli(argv: string[], io: Io): Promise<number> {
  let baseUrl = DEFAULT_BASE_URL;
  try {
    const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    const [command, ...rest] = positionals;
    if (values.help || command === undefined || command === 'help') {
      io.err(USAGE);
      return command === undefined && !values.help ? 2 : 0;
    }
    const settings = readSettings(values, io.env, io.cwd);
    baseUrl = settings.baseUrl;
    switch (command) {
      case 'bootstrap':
        return await bootstrapCommand(settings, values, io);
      case 'listen':
        return await listenCommand(settings, values, io);
      case 'trigger':
        return await triggerCommand(settings, rest, io);
      case 'ledger':
        return await ledger(rest, values, { out: io.out, err: io.err, cwd: io.cwd });
      case 'payouts':
        return await payouts(rest[0], rest.slice(1), values, settings, () => client(settings), io);
      case 'keys':
        return await keys(rest, values, settings, io);
      case 'audit':
        if (rest.length > 0) throw new UsageError(`audit takes no argument (got ${rest.join(' ')})`);
        return await audit(values, settings, io);
      case 'ops':
        if (rest.length > 1) throw new UsageError(`ops takes one of subscriptions, parked, deliveries, endpoints (got ${rest.join(' ')})`);
        return await ops(rest[0], values, settings, io);
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`payments: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    io.err(`payments: ${describe(error, baseUrl)}`);
    return 1;
  }
}

function describe(error: unknown, baseUrl: string): string {
  if (error instanceof PaymentsError) {
    const said = `${error.message} (${error.code}${error.param ? `, ${error.param}` : ''}${error.requestId ? `, Request-Id ${error.requestId}` : ''})`;
    return mayBeWrongAddress(error) ? `${said}: ${addressHint(baseUrl)}` : said;
  }
  return (error as Error)?.message ?? String(error);
}

/**
 * No answer, an answer that is not JSON, or a 404 without the Request-Id the service puts on every
 * answer: the service may not be at that address.
 */
const mayBeWrongAddress = (error: PaymentsError): boolean =>
  error.code === 'connection_error' || error.code === 'timeout' || error.code === 'invalid_response' || (error.status === 404 && !error.requestId);

const client = (settings: Settings) => new Payments({ apiKey: requireApiKey(settings), baseUrl: settings.baseUrl });

async function bootstrapCommand(settings: Settings, values: { currency?: string; name?: string }, io: Io): Promise<number> {
  const currency = (values.currency ?? 'DZD').toUpperCase();
  if (!CURRENCIES.includes(currency)) throw new UsageError(`--currency must be one of ${CURRENCIES.join(', ')}`);
  const result = await bootstrap(settings, { currency, name: values.name ?? 'My shop' });
  io.err(
    [
      `Created a sandbox integrator ${result.integrator} on ${settings.baseUrl} (${currency}):`,
      `  merchant ${result.merchant}, business ${result.business} (funded) paying beneficiary ${result.beneficiary},`,
      `  wholesaler ${result.wholesaler}, cash point ${result.cashPoint}, refunds merchant ${result.refundsMerchant}`,
      `  customer ${result.customer} (funded): phone ${result.customerPhone}, PIN ${result.customerPin} for the hosted pages`,
      `The API key is in PAY_API_KEY below and is shown only now: eval "$(npx payments bootstrap)" keeps it in your shell.`,
    ].join('\n'),
  );
  io.out(exportLines(settings.baseUrl, currency, result).trimEnd());
  return 0;
}

async function listenCommand(settings: Settings, values: { 'forward-to'?: string; events?: string; from?: string; secret?: string }, io: Io): Promise<number> {
  const forwardTo = values['forward-to'];
  if (!forwardTo || !/^https?:\/\//.test(forwardTo)) throw new UsageError('listen needs --forward-to http://localhost:4000/hooks (an http or https URL)');
  const types = values.events ? new Set(values.events.split(',').map((type) => type.trim())) : undefined;
  for (const type of types ?? []) if (!TRIGGER_TYPES.includes(type as never)) throw new UsageError(`--events: unknown event type '${type}'`);
  const secret = values.secret ?? io.env['PAY_WEBHOOK_SECRET'] ?? newLocalSecret();
  if (!secret.startsWith('whsec_')) throw new UsageError('--secret must be a whsec_… secret');
  const forwarder = new EventForwarder(client(settings), {
    forwardTo,
    secret,
    types,
    onForwarded: (outcome: Forwarded) => io.out(line(outcome)),
  });
  await forwarder.position(values.from);
  if (!values.secret && !io.env['PAY_WEBHOOK_SECRET']) io.err(`Your local webhook signing secret is ${secret} (verify deliveries with it; pass --secret to keep one).`);
  // Last: whoever waits for "Ready." has read everything above it.
  io.err(`Ready. Forwarding ${types ? [...types].join(', ') : 'every event'} to ${forwardTo}${values.from ? `, from ${values.from} on` : ''}.`);
  await forwarder.run(io.signal, (error) => io.err(`payments: could not read events: ${describe(error, settings.baseUrl)} (trying again)`));
  return 0;
}

function line({ event, status, error, ms }: Forwarded): string {
  const outcome = status !== undefined ? `[${status}]` : `[failed: ${error}]`;
  return `${event.created_at}  ${event.type.padEnd(32)} ${event.id}  ${outcome} ${ms} ms`;
}

async function triggerCommand(settings: Settings, types: string[], io: Io): Promise<number> {
  if (types.length === 0) throw new UsageError('trigger needs an event type');
  const unknown = types.filter((type) => !TRIGGER_TYPES.includes(type as never));
  if (unknown.length > 0) throw new UsageError(`unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; one of: ${TRIGGER_TYPES.join(', ')}`);
  const context = {
    client: client(settings),
    ...(settings.adminKey ? { admin: adminClient(settings) } : {}),
    env: io.env,
    currency: (io.env['PAY_CURRENCY'] ?? 'DZD') as Currency,
    note: (text: string) => io.err(`  ${text}`),
  };
  for (const type of types) {
    io.err(`Triggering ${type}…`);
    const { objectId, eventId } = await trigger(type, context);
    io.out(`${type} ${eventId} ${objectId}`);
  }
  return 0;
}
