import type { AccountDeltas, BrokenChainResource, ChainVerificationResource, ExpectedMovements, ReconciliationDifferenceResource, ReconciliationResource } from '@pay/contracts';
import { RECONCILIATION_DIFFERENCES_MAX } from '@pay/kernel';

export type Difference = ReconciliationDifferenceResource;

export type BrokenChain = BrokenChainResource;

export type ReconciliationReport = ReconciliationResource;

/**
 * Compares what the objects' histories say moved with what the ledger moved, reference by reference and
 * account by account: a reference the ledger lacks, a reference no object explains, or another amount.
 */
export function reconcile(expected: readonly ExpectedMovements[], ledger: Readonly<Record<string, AccountDeltas>>, chain?: ChainVerificationResource): ReconciliationReport {
  const differences: (Difference | BrokenChain)[] = [];
  // First: a broken chain says the books themselves were changed, whatever else differs.
  if (chain && chain.first_broken_sequence !== null) {
    const sequence = chain.first_broken_sequence;
    differences.push({ kind: 'broken_chain', sequence, message: `the ledger's hash chain breaks at sequence ${sequence}: that entry was changed, removed or moved after it was written` });
  }
  const owners = new Map<string, string>();
  const wanted: Record<string, AccountDeltas> = {};
  for (const item of expected) {
    for (const [reference, deltas] of Object.entries(item.byReference)) {
      owners.set(reference, item.objectId);
      wanted[reference] = deltas;
    }
  }
  for (const reference of new Set([...Object.keys(wanted), ...Object.keys(ledger)])) {
    const want = wanted[reference] ?? {};
    const found = ledger[reference] ?? {};
    const objectId = owners.get(reference) ?? null;
    for (const account of new Set([...Object.keys(want), ...Object.keys(found)])) {
      const e = want[account] ?? 0;
      const f = found[account] ?? 0;
      if (e === f) continue;
      const kind = !(reference in ledger) ? 'missing_entry' : !(reference in wanted) ? 'unexpected_entry' : 'amount_mismatch';
      differences.push({ object_id: objectId, reference, kind, account, expected: e, found: f, message: describe(kind, reference, account, e, f) });
    }
  }
  return {
    object: 'reconciliation',
    status: differences.length === 0 ? 'balanced' : 'differences',
    checked_objects: expected.length,
    differences: differences.slice(0, RECONCILIATION_DIFFERENCES_MAX),
  };
}

const describe = (kind: Difference['kind'], reference: string, account: string, expected: number, found: number): string => {
  switch (kind) {
    case 'missing_entry':
      return `${reference}: its history says ${account} moved ${expected}, the ledger has no entry for it`;
    case 'unexpected_entry':
      return `${reference}: the ledger moved ${account} by ${found}, and no object's history explains it`;
    default:
      return `${reference}: ${account} moved ${found} in the ledger, ${expected} by the object's history`;
  }
};
