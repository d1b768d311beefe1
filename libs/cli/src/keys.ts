import { Payments, PaymentsAdmin, type ApiKeyScope } from '@pay/sdk';
import { OPS_ROWS_MAX } from './limits';
import { table } from './ops';
import { requireApiKey, UsageError, type Settings } from './settings';

export interface KeysFlags {
  name?: string;
  scopes?: string;
  'expires-at'?: string;
  'expires-in'?: string;
  action?: string;
  since?: string;
  integrator?: string;
  all?: boolean;
}

interface KeysIo {
  out(line: string): void;
  err(line: string): void;
}

export const KEYS_COMMANDS = ['list', 'create', 'roll', 'revoke'] as const;

/** `payments keys <list|create|roll|revoke>`: the integrator's API keys, with a ["*"] key. */
export async function keys(args: string[], flags: KeysFlags, settings: Settings, io: KeysIo): Promise<number> {
  const [what, keyId, ...extra] = args;
  if (extra.length > 0) throw new UsageError(`keys ${what} takes at most one key id (got ${args.slice(1).join(' ')})`);
  const apiKeys = new Payments({ apiKey: requireApiKey(settings), baseUrl: settings.baseUrl }).apiKeys;
  const needId = () => {
    if (!keyId?.startsWith('key_')) throw new UsageError(`keys ${what} needs a key id (key_…)`);
    return keyId;
  };
  switch (what) {
    case 'list': {
      const rows = [];
      for await (const key of apiKeys.list({ limit: 100 })) {
        rows.push([key.id, key.name, key.scopes.join(','), key.redacted, key.status, key.expires_at, key.last_used_at]);
        if (rows.length >= OPS_ROWS_MAX) break;
      }
      io.out(table(['KEY', 'NAME', 'SCOPES', 'SECRET', 'STATUS', 'EXPIRES', 'LAST USED'], rows));
      return 0;
    }
    case 'create': {
      if (!flags.name || !flags.scopes) throw new UsageError('keys create needs --name NAME and --scopes payments:write,refunds:read (or --scopes "*")');
      const scopes = flags.scopes.split(',').map((s) => s.trim()) as ApiKeyScope[];
      const created = await apiKeys.create({ name: flags.name, scopes, ...(flags['expires-at'] ? { expires_at: flags['expires-at'] } : {}) });
      io.err(`Created ${created.id} (${created.scopes.join(', ')}). Its secret, shown only now:`);
      io.out(created.api_key);
      return 0;
    }
    case 'roll': {
      const expiresIn = flags['expires-in'] === undefined ? undefined : Number(flags['expires-in']);
      if (expiresIn !== undefined && !Number.isInteger(expiresIn)) throw new UsageError('--expires-in is a whole number of seconds (0 to 604800)');
      const rolled = await apiKeys.roll(needId(), expiresIn === undefined ? {} : { expires_in: expiresIn });
      io.err(`Rolled ${keyId} into ${rolled.id}; ${keyId} works ${expiresIn ?? 0} s more. The new secret, shown only now:`);
      io.out(rolled.api_key);
      return 0;
    }
    case 'revoke': {
      const revoked = await apiKeys.revoke(needId());
      io.out(`${revoked.id} ${revoked.status}`);
      return 0;
    }
    default:
      throw new UsageError(`keys takes one of ${KEYS_COMMANDS.join(', ')}`);
  }
}

/** `payments audit`: the integrator's audit trail (its ["*"] key), or with --all every one's (the admin key). */
export async function audit(flags: KeysFlags, settings: Settings, io: KeysIo): Promise<number> {
  const filters = { limit: 100, ...(flags.action ? { action: flags.action } : {}), ...(flags.since ? { created_gte: flags.since } : {}) };
  if (flags.integrator && !flags.all) throw new UsageError('--integrator goes with --all (the admin key)');
  if (flags.all && !settings.adminKey) throw new UsageError('audit --all needs the admin key: set PAY_ADMIN_KEY or pass --admin-key');
  const events = flags.all
    ? new PaymentsAdmin({ adminKey: settings.adminKey!, baseUrl: settings.baseUrl }).auditEvents.list({ ...filters, ...(flags.integrator ? { integrator: flags.integrator } : {}) })
    : new Payments({ apiKey: requireApiKey(settings), baseUrl: settings.baseUrl }).auditEvents.list(filters);
  const rows = [];
  for await (const event of events) {
    rows.push([event.created_at, event.action, `${event.target.object} ${event.target.id}`, `${event.actor.type}${event.actor.id ? ` ${event.actor.id}` : ''}`, event.integrator, event.request_id]);
    if (rows.length >= OPS_ROWS_MAX) break;
  }
  io.out(table(['TIME', 'ACTION', 'TARGET', 'ACTOR', 'INTEGRATOR', 'REQUEST'], rows));
  return 0;
}
