-- Up Migration
-- The hash chain: every entry gets a gapless sequence over the whole ledger, in commit order, and the
-- hash that chains it to the previous one. The writer of an entry chains it in its own transaction,
-- holding the head's row lock, so sequences follow commit order and none is skipped by a rollback.
-- Entries written before the chain existed (sequence null) are sealed after them by the sealer.
ALTER TABLE ledger_entries ADD COLUMN sequence bigint, ADD COLUMN hash text;
CREATE UNIQUE INDEX ledger_entries_by_sequence ON ledger_entries (sequence);
-- Small: only entries not chained yet (those older than the chain, or written by a tool straight in SQL).
CREATE INDEX ledger_entries_unsealed ON ledger_entries (position) WHERE sequence IS NULL;

-- One row: the last chained entry (sequence 0 and 64 zeros before the first). Its row lock orders the
-- writers of the chain.
CREATE TABLE ledger_chain_head (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  sequence bigint NOT NULL,
  hash text NOT NULL
);
INSERT INTO ledger_chain_head (sequence, hash) VALUES (0, repeat('0', 64));

-- Every public key that ever signed a head: a replaced key stays here, so old heads still verify.
-- Public keys only: the private key never enters the database.
CREATE TABLE ledger_signing_keys (
  key_id text PRIMARY KEY,
  algorithm text NOT NULL CHECK (algorithm = 'Ed25519'),
  public_key text NOT NULL,
  created_at timestamptz NOT NULL
);

-- Down Migration
DROP TABLE ledger_signing_keys;
DROP TABLE ledger_chain_head;
DROP INDEX ledger_entries_unsealed;
DROP INDEX ledger_entries_by_sequence;
ALTER TABLE ledger_entries DROP COLUMN hash, DROP COLUMN sequence;
