import { type ChainEntryResource, type ChainVerificationResource, type LedgerHeadResource, type ListResource, ServiceError, type SigningKeyResource } from '@pay/contracts';
import { type Clock, iso, LEDGER_CHAIN_PAGE_MAX, LEDGER_CHAIN_SEAL_BATCH_MAX, LEDGER_CHAIN_SEAL_INTERVAL_MS } from '@pay/kernel';
import { headMessage } from '@pay/ledger-domain';
import { hostLogger } from '@pay/observability';
import { inTransaction } from '@pay/platform';
import { type Pool } from 'pg';
import { hashAt, hasUnchained, readChain, sealUnchained, verifyStoredChain } from './chain.store';
import { type LedgerSigningKey } from './signing-key';

/**
 * The ledger's hash chain: entries are chained by their writers (ledger.store); this reads the chain,
 * signs its head, lists the keys, verifies it, and seals the entries that have no sequence yet.
 */
export class LedgerChain {
  private timer: NodeJS.Timeout | undefined;
  private sealing: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly clock: Clock,
    private readonly key: LedgerSigningKey,
  ) {}

  /**
   * Lists the signing key (kept forever, so heads it signed still verify), then seals the backlog and
   * keeps looking, in the background: a ledger older than the chain may hold millions of entries to
   * seal, minutes of work the service must not wait for to answer (new entries are chained as they are
   * written meanwhile; the backlog follows them in the chain).
   */
  async start(): Promise<void> {
    await this.pool.query({
      name: 'ledger.register-signing-key',
      text: `INSERT INTO ledger_signing_keys (key_id, algorithm, public_key, created_at) VALUES ($1, 'Ed25519', $2, $3) ON CONFLICT (key_id) DO NOTHING`,
      values: [this.key.keyId, this.key.publicKey, new Date()],
    });
    this.sealInBackground();
    this.timer = setInterval(() => this.sealInBackground(), LEDGER_CHAIN_SEAL_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops between two sealing transactions: what is sealed stays sealed, the rest waits for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.sealing;
  }

  private sealInBackground(): void {
    if (this.sealing || this.stopped) return;
    this.sealing = this.sealAll()
      .then(() => undefined)
      .catch((error: unknown) => hostLogger().warn({ err: error }, 'ledger: sealing entries into the chain failed; trying again'))
      .finally(() => (this.sealing = undefined));
  }

  /** Entries without a sequence, chained after the head a transaction at a time. */
  async sealAll(): Promise<number> {
    if (!(await hasUnchained(this.pool))) return 0;
    let sealed = 0;
    for (let after = 0; ; ) {
      const page = await inTransaction(this.pool, (client) => sealUnchained(client, LEDGER_CHAIN_SEAL_BATCH_MAX, after));
      sealed += page.sealed;
      after = page.lastPosition;
      if (page.sealed < LEDGER_CHAIN_SEAL_BATCH_MAX || this.stopped) return sealed;
    }
  }

  async list({ fromSequence, limit }: { fromSequence: number; limit: number }): Promise<ListResource<ChainEntryResource>> {
    const page = Math.min(limit, LEDGER_CHAIN_PAGE_MAX);
    const [prev, entries] = await Promise.all([hashAt(this.pool, fromSequence - 1), readChain(this.pool, fromSequence, page + 1)]);
    const data: ChainEntryResource[] = [];
    let prevHash = prev ?? null;
    for (const entry of entries.slice(0, page)) {
      // Stored rows answered as they are (a gap or a changed row is what verification finds): prev_hash
      // is the stored hash of the sequence before.
      data.push({ sequence: entry.sequence, id: entry.id, reference: entry.reference, created_at: entry.created_at, postings: [...entry.postings], prev_hash: prevHash ?? '', hash: entry.hash });
      prevHash = entry.hash;
    }
    return { object: 'list', data, has_more: entries.length > page };
  }

  /** The head (the last entry, or the one at `toSequence`), signed now with the current key. */
  async head({ toSequence }: { toSequence?: number } = {}): Promise<LedgerHeadResource> {
    const { rows } = await this.pool.query<{ sequence: number; hash: string }>({ name: 'ledger.chain-head', text: 'SELECT sequence, hash FROM ledger_chain_head' });
    const latest = rows[0]!;
    let head = latest;
    if (toSequence !== undefined && toSequence < latest.sequence) {
      const hash = await hashAt(this.pool, toSequence);
      if (hash === undefined) throw new ServiceError('invalid_request', `sequence ${toSequence} is not in the chain`, 'to_sequence');
      head = { sequence: toSequence, hash };
    }
    const signed = { sequence: head.sequence, hash: head.hash, signed_at: iso(this.clock.now()) };
    return { object: 'ledger_head', ...signed, key_id: this.key.keyId, signature: this.key.sign(headMessage(signed)) };
  }

  async signingKeys(): Promise<ListResource<SigningKeyResource>> {
    const { rows } = await this.pool.query<{ key_id: string; public_key: string }>('SELECT key_id, public_key FROM ledger_signing_keys ORDER BY created_at, key_id');
    return { object: 'list', data: rows.map((r) => ({ key_id: r.key_id, algorithm: 'Ed25519', public_key: r.public_key })), has_more: false };
  }

  async verify(): Promise<ChainVerificationResource> {
    const { entries, firstBroken } = await verifyStoredChain(this.pool, LEDGER_CHAIN_PAGE_MAX);
    return { object: 'chain_verification', status: firstBroken === null ? 'valid' : 'broken', entries, first_broken_sequence: firstBroken };
  }
}
