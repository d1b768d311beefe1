import { Controller, Get, Inject, Param, Query, Req, Res, StreamableFile, UseGuards } from '@nestjs/common';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { BalanceResource, CashInTransitResource, ChainEntryResource, FeeRevenueResource, JournalEntryResource, LedgerAccountResource, LedgerHeadResource, listOf, type ListResource, notFound, ServiceError, SigningKeyResource, StatementResource, TrialBalanceResource } from '@pay/contracts';
import { CASH_IN_TRANSIT_COLLECTIONS_MAX, CURRENCIES, ID_LENGTH_MAX, LEDGER_CHAIN_PAGE_DEFAULT, LEDGER_CHAIN_PAGE_MAX, LEDGER_CHAIN_VERIFY_TIMEOUT_MS, LEDGER_ACCOUNT_ID_LENGTH_MAX, LEDGER_ENTRIES_PAGE_MAX, LIST_LIMIT_DEFAULT, STATEMENT_LIMIT_DEFAULT, STATEMENT_LIMIT_MAX, STRING_LENGTH_MAX } from '@pay/kernel';
import { isoTime, parseListQuery } from '../api/list-query';
import { FinanceGuard } from '../auth/admin.guard';
import { negotiateMediaType } from '../http/accept';
import { LIST_QUERY, QueryParams, Returns, ReturnsMedia } from '../openapi/describe';

/**
 * Accounts whose balance finance may read: an owner's, a cash point's in one currency (`cp_…:<CUR>`),
 * or the platform's by name (`platform:cash_in_transit:DZD`).
 */
const BALANCE_ACCOUNT = new RegExp(
  `^((cus|conn|ben)_[A-Za-z0-9]{1,${ID_LENGTH_MAX}}|cp_[A-Za-z0-9]{1,${ID_LENGTH_MAX}}:(${CURRENCIES.join('|')})|platform:(fees|funding|cash|cash_in_transit):(${CURRENCIES.join('|')}))$`,
);
const CASH_POINT_ID = new RegExp(`^cp_[A-Za-z0-9]{1,${ID_LENGTH_MAX}}$`);
/** Any ledger account id: an owner's id, `cp_…:<CUR>` or `platform:<kind>:<CUR>`. */
export const ACCOUNT_ID = new RegExp(`^[A-Za-z0-9_:]{1,${LEDGER_ACCOUNT_ID_LENGTH_MAX}}$`);
/** The parameters of the entries of an account, which the entries of a reference do not take. */
const BY_ACCOUNT_ONLY = ['from', 'to', 'limit', 'starting_after'] as const;
export const ACCOUNT_KINDS = ['customer', 'connection', 'beneficiary', 'cash_point', 'platform_fees', 'platform_funding', 'platform_cash', 'platform_cash_in_transit', 'platform_payouts_in_transit', 'platform_paid_out'] as const;

/**
 * Finance's read-only access to the ledger (admin key or a finance key): balances and the trial
 * balance as of a time, accounts, statements, entries, fee revenue and cash in transit; CSV for
 * entries, statements and fee revenue with `Accept: text/csv`.
 */
@Controller('admin/v1')
@UseGuards(FinanceGuard)
export class FinanceController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Returns(BalanceResource, 'Retrieve an account’s balance', { description: 'The balance now, or as it stood at `as_of`.' })
  @QueryParams('as_of')
  @Get('balances/:owner')
  async balance(@Param('owner') owner: string, @Query() query: unknown): Promise<BalanceResource> {
    const { as_of: asOf } = timeParams(query, [], ['as_of']);
    if (CASH_POINT_ID.test(owner)) {
      throw new ServiceError('invalid_request', `a cash point holds one account per currency: ask for ${owner}:<currency>, e.g. ${owner}:DZD`, 'owner');
    }
    if (!BALANCE_ACCOUNT.test(owner)) throw notFound('account', owner);
    return this.bus.request('ledger.get-balance', { owner, ...(asOf === undefined ? {} : { asOf }) });
  }

  @Returns(TrialBalanceResource, 'Retrieve the trial balance')
  @QueryParams('as_of')
  @Get('ledger/trial_balance')
  async trialBalance(@Query() query: unknown): Promise<TrialBalanceResource> {
    const { as_of: asOf } = timeParams(query, [], ['as_of']);
    return this.bus.request('ledger.trial-balance', asOf === undefined ? {} : { asOf });
  }

  @Returns(listOf(LedgerAccountResource), 'List ledger accounts')
  @QueryParams({ kind: ACCOUNT_KINDS, currency: CURRENCIES }, ...LIST_QUERY)
  @Get('ledger/accounts')
  async accounts(@Query() query: unknown): Promise<ListResource<LedgerAccountResource>> {
    const { limit, startingAfter, filters } = parseListQuery(query, ['kind', 'currency'] as const, { oneOf: { kind: ACCOUNT_KINDS, currency: CURRENCIES }, idPattern: ACCOUNT_ID });
    return this.bus.request('ledger.accounts.list', { limit, ...(startingAfter === undefined ? {} : { startingAfter }), ...filters });
  }

  @Returns(StatementResource, 'Retrieve an account statement', { csv: true, description: 'The lines of one account between `from` (exclusive opening balance) and `to`, oldest first, each with its running balance.' })
  @QueryParams('from!', 'to!', { limit: { type: 'integer', minimum: 1, maximum: STATEMENT_LIMIT_MAX, default: STATEMENT_LIMIT_DEFAULT, description: `How many lines a page holds, 1 to ${STATEMENT_LIMIT_MAX} (default ${STATEMENT_LIMIT_DEFAULT}).` } }, { starting_after: { type: 'string', maxLength: STRING_LENGTH_MAX, description: 'The entry id of the last line of the previous page.' } })
  @Get('ledger/accounts/:id/statement')
  async statement(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') account: string, @Query() query: unknown): Promise<StatementResource | string> {
    const { from, to, limit, starting_after: startingAfter } = timeParams(query, ['from', 'to'], [], ['limit', 'starting_after']);
    const statement = await this.bus.request('ledger.statement', {
      account,
      ...period(from, to),
      limit: statementLimit(limit),
      ...(startingAfter === undefined ? {} : { startingAfter }),
    });
    if (!wantsCsv(request)) return statement;
    return csv(reply, ['entry', 'reference', 'kind', 'created_at', 'direction', 'amount', 'balance_after'], statement.lines.map((l) => [l.entry, l.reference, l.kind, l.created_at, l.direction, l.amount, l.balance_after]));
  }

  /** By `reference` (an object id), or by `account` over an optional period; oldest first. */
  @Returns(listOf(JournalEntryResource), 'List journal entries', { csv: true, description: 'Every entry of one reference (in one answer: `reference` takes no other parameter), or the entries of one account over a period, a page at a time; oldest first.' })
  @QueryParams('reference', 'account', 'from', 'to', { limit: { type: 'integer', minimum: 1, maximum: LEDGER_ENTRIES_PAGE_MAX, default: LIST_LIMIT_DEFAULT, description: `How many entries a page holds, 1 to ${LEDGER_ENTRIES_PAGE_MAX} (default ${LIST_LIMIT_DEFAULT}).` } }, 'starting_after')
  @Get('ledger/entries')
  async entries(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<ListResource<JournalEntryResource> | string> {
    const params = timeParams(query, [], ['from', 'to'], ['reference', 'account', 'limit', 'starting_after']);
    const { reference, account } = params;
    if ((reference === undefined) === (account === undefined)) throw new ServiceError('invalid_request', 'give reference (an object id) or account', reference === undefined ? 'reference' : 'account');
    if (reference !== undefined) {
      // One object's entries are few and answered whole: a page or a period would be silently ignored.
      const unused = BY_ACCOUNT_ONLY.find((name) => params[name] !== undefined);
      if (unused !== undefined) throw new ServiceError('invalid_request', `${unused} is taken with account only: reference answers every entry of the object`, unused);
    }
    if (params.from !== undefined && params.to !== undefined) period(params.from, params.to);
    const entries =
      reference !== undefined
        ? await this.bus.request('ledger.entries', { reference })
        : await this.bus.request('ledger.entries', {
            account: account!,
            ...(params.from === undefined ? {} : { from: params.from }),
            ...(params.to === undefined ? {} : { to: params.to }),
            limit: listLimit(params.limit),
            ...(params.starting_after === undefined ? {} : { startingAfter: params.starting_after }),
          });
    if (!wantsCsv(request)) return entries;
    const rows = entries.data.flatMap((e) => e.postings.map((p) => [e.id, e.reference, e.kind, e.created_at, p.account, p.direction, p.amount, p.currency]));
    return csv(reply, ['entry', 'reference', 'kind', 'created_at', 'account', 'direction', 'amount', 'currency'], rows);
  }

  @Returns(FeeRevenueResource, 'Report fee revenue', { csv: true })
  @QueryParams('from!', 'to!')
  @Get('ledger/fee_revenue')
  async feeRevenue(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<FeeRevenueResource | string> {
    const { from, to } = timeParams(query, ['from', 'to']);
    const revenue = await this.bus.request('ledger.fee-revenue', period(from, to));
    if (!wantsCsv(request)) return revenue;
    const rows = revenue.currencies.flatMap((c) => Object.entries(c.by_use_case).map(([useCase, amount]) => [c.currency, useCase, amount]));
    return csv(reply, ['currency', 'use_case', 'amount'], rows);
  }

  /** The hash chain, ascending from `from_sequence` (contract section 17). */
  @Returns(listOf(ChainEntryResource), 'List the ledger’s hash chain', {
    operationId: 'admin.chain.list',
    description: 'The ledger’s entries in sequence order, ascending from `from_sequence`, each with `prev_hash` and `hash`: `hash` is the SHA-256 of `prev_hash`, a newline and the RFC 8785 JSON of `{sequence, id, reference, created_at, postings}`.',
  })
  @QueryParams(
    { from_sequence: { type: 'integer', minimum: 1, default: 1, description: 'The first sequence of the page (default 1).' } },
    { limit: { type: 'integer', minimum: 1, maximum: LEDGER_CHAIN_PAGE_MAX, default: LEDGER_CHAIN_PAGE_DEFAULT, description: `How many entries a page holds, 1 to ${LEDGER_CHAIN_PAGE_MAX} (default ${LEDGER_CHAIN_PAGE_DEFAULT}).` } },
  )
  @Get('ledger/chain')
  async chain(@Query() query: unknown): Promise<ListResource<ChainEntryResource>> {
    const params = timeParams(query, [], [], ['from_sequence', 'limit']);
    const fromSequence = sequenceParam(params.from_sequence, 'from_sequence', 1) ?? 1;
    return this.bus.request('ledger.chain.list', { fromSequence, limit: boundedInt(params.limit, LEDGER_CHAIN_PAGE_DEFAULT, LEDGER_CHAIN_PAGE_MAX, 'limit') });
  }

  /** The chain's last entry, signed now. */
  @Returns(LedgerHeadResource, 'Retrieve the chain’s signed head', { description: 'The chain’s last entry, signed now with Ed25519 over `sequence + "." + hash + "." + signed_at`.' })
  @Get('ledger/chain/head')
  async chainHead(): Promise<LedgerHeadResource> {
    return this.bus.request('ledger.chain.head', {});
  }

  @Returns(listOf(SigningKeyResource), 'List the chain’s signing keys', { description: 'The public keys (PEM SPKI) that check the head’s signature, by `key_id`.' })
  @Get('ledger/signing_keys')
  async signingKeys(): Promise<ListResource<SigningKeyResource>> {
    return this.bus.request('ledger.signing-keys', {});
  }

  /**
   * NDJSON: every chain entry from sequence 1 to the head (or `to_sequence`), then the signed head with
   * the public key of the key that signed it, so that `payments ledger verify` needs nothing but the file.
   * Read a page at a time while it is sent.
   */
  @ReturnsMedia(
    'application/x-ndjson',
    { type: 'string', description: 'One `ChainEntry` JSON a line from sequence 1, then one line: the `LedgerHead` at the last entry, with the `public_key` that signed it.' },
    'Export the hash chain',
    { description: 'The chain as NDJSON, to check offline with `payments ledger verify FILE`: every entry from sequence 1 (to `to_sequence`, else the head), then the signed head.' },
  )
  @QueryParams({ to_sequence: { type: 'integer', minimum: 0, description: 'The export’s last sequence (default: the head).' } })
  @Get('ledger/chain/export')
  async chainExport(@Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<StreamableFile> {
    const params = timeParams(query, [], [], ['to_sequence']);
    const toSequence = sequenceParam(params.to_sequence, 'to_sequence', 0);
    const options = { timeoutMs: LEDGER_CHAIN_VERIFY_TIMEOUT_MS };
    const head = await this.bus.request('ledger.chain.head', toSequence === undefined ? {} : { toSequence }, options);
    const keys = await this.bus.request('ledger.signing-keys', {}, options);
    const publicKey = keys.data.find((k) => k.key_id === head.key_id)?.public_key;
    const bus = this.bus;
    async function* lines(): AsyncGenerator<string> {
      for (let from = 1; from <= head.sequence; ) {
        const page = await bus.request('ledger.chain.list', { fromSequence: from, limit: LEDGER_CHAIN_PAGE_MAX }, options);
        const within = page.data.filter((entry) => entry.sequence <= head.sequence);
        if (within.length > 0) yield within.map((entry) => `${JSON.stringify(entry)}\n`).join('');
        const last = page.data[page.data.length - 1];
        if (!page.has_more || !last || last.sequence >= head.sequence) break;
        from = last.sequence + 1;
      }
      yield `${JSON.stringify({ ...head, ...(publicKey === undefined ? {} : { public_key: publicKey }) })}\n`;
    }
    void reply.header('Content-Disposition', `attachment; filename="ledger-chain-${head.sequence}.ndjson"`);
    return new StreamableFile(Readable.from(lines()), { type: 'application/x-ndjson' });
  }

  @Returns(CashInTransitResource, 'Report cash in transit')
  @Get('ledger/cash_in_transit')
  async cashInTransit(): Promise<CashInTransitResource> {
    const [custody, collections] = await Promise.all([
      this.bus.request('ledger.cash-custody', {}),
      this.bus.request('collections.unsettled', { limit: CASH_IN_TRANSIT_COLLECTIONS_MAX }),
    ]);
    return {
      ...custody,
      collections: collections.map((c) => ({
        id: c.id,
        amount: c.amount,
        currency: c.currency,
        status: c.status,
        collected_at: c.collected_at,
        due_at: c.deposit?.due_at ?? null,
        overdue: c.deposit?.overdue ?? false,
        point: c.deposit?.point ?? null,
      })),
    };
  }
}


/**
 * The query's parameters by name: `required` and `optional` ISO times (normalised), and `plain` strings.
 * Anything else is an unknown parameter.
 */
function timeParams(query: unknown, required: readonly string[], optional: readonly string[] = [], plain: readonly string[] = []): Record<string, string | undefined> {
  const params = { ...((query as object | undefined) ?? {}) } as Record<string, unknown>;
  const known = new Set([...required, ...optional, ...plain]);
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(params)) {
    if (!known.has(name)) throw new ServiceError('invalid_request', `unknown parameter: ${name}`, name);
    if (typeof value !== 'string' || value === '' || value.length > STRING_LENGTH_MAX) throw new ServiceError('invalid_request', `${name} must be given once, 1 to ${STRING_LENGTH_MAX} characters`, name);
  }
  for (const name of required) if (params[name] === undefined) throw new ServiceError('invalid_request', `${name} is required (an ISO 8601 time)`, name);
  // `from` is an inclusive lower bound; `to` and `as_of` inclusive upper bounds (created_at <= them).
  for (const name of [...required, ...optional]) out[name] = isoTime(params, name, name === 'from' ? 'up' : 'down');
  for (const name of plain) out[name] = params[name] as string | undefined;
  return out;
}

const period = (from: string | undefined, to: string | undefined): { from: string; to: string } => {
  if (from! >= to!) throw new ServiceError('invalid_request', 'from must be before to', 'from');
  return { from: from!, to: to! };
};

const boundedInt = (value: string | undefined, fallback: number, max: number, param: string): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d{1,4}$/.test(value) || n < 1 || n > max) throw new ServiceError('invalid_request', `${param} must be an integer from 1 to ${max}`, param);
  return n;
};
/** A sequence number from the query: an integer from `min` on. */
const sequenceParam = (value: string | undefined, param: string, min: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d{1,15}$/.test(value) || n < min) throw new ServiceError('invalid_request', `${param} must be an integer from ${min} on`, param);
  return n;
};
const statementLimit = (value: string | undefined) => boundedInt(value, STATEMENT_LIMIT_DEFAULT, STATEMENT_LIMIT_MAX, 'limit');
const listLimit = (value: string | undefined) => boundedInt(value, LIST_LIMIT_DEFAULT, LEDGER_ENTRIES_PAGE_MAX, 'limit');

/** CSV when the Accept header prefers it to JSON, by its q-values (JSON when it names neither). */
const wantsCsv = (request: FastifyRequest): boolean => negotiateMediaType(request.headers.accept, ['application/json', 'text/csv']) === 'text/csv';

/** A header row, then one row per line or posting. */
const csv = (reply: FastifyReply, header: string[], rows: unknown[][]): string => {
  void reply.header('Content-Type', 'text/csv; charset=utf-8');
  return stringify([header, ...rows]);
};
