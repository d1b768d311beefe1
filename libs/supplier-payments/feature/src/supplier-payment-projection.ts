import type { Pool } from 'pg';
import { ServiceError, type ListResource, type ListSupplierPayments, type SupplierPaymentResource } from '@pay/contracts';
import { projectForward, type SweptView } from '@pay/event-store';
import { columns, jsonElement, jsonbElements } from '@pay/platform';
import { supplierPaymentDecider, toSupplierPaymentResource, type SupplierPayment, type SupplierPaymentEvent } from '@pay/supplier-payments-domain';

type Existing = Exclude<SupplierPayment, { status: 'none' }>;

/**
 * Projects supplier payment events into sp_supplier_payment_views, in the subscription's transaction
 * (with its checkpoint). The row keeps the folded state: each event is applied with `evolve`, and a
 * row only moves forward (an event at or below the row's revision is ignored).
 */
export const projectSupplierPaymentEvents = projectForward<SupplierPaymentEvent, SupplierPayment, 'SupplierPaymentCreated'>({
  name: 'supplier payment',
  table: 'sp_supplier_payment_views',
  idColumn: 'supplier_payment_id',
  decider: supplierPaymentDecider,
  idOf: (event) => event.supplierPaymentId,
  createdBy: 'SupplierPaymentCreated',
  // Rows are inserted in the events' order (WITH ORDINALITY): `seq` orders the list among equal created_at.
  insert: async (tx, rows) => {
    await tx.query({
      name: 'sp-views-insert',
      text: `INSERT INTO sp_supplier_payment_views (supplier_payment_id, integrator_id, invoice_reference, status, expires_at, state, revision, updated_at, created_at)
             SELECT r.supplier_payment_id, r.integrator_id, r.invoice_reference, 'awaiting_approval', r.expires_at, r.state, r.revision, now(), r.created_at
             FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], ${jsonbElements(5)}, $6::bigint[], $7::timestamptz[])
                  WITH ORDINALITY AS r (supplier_payment_id, integrator_id, invoice_reference, expires_at, state, revision, created_at, n)
             ORDER BY r.n
             ON CONFLICT (supplier_payment_id) DO NOTHING`,
      values: columns(rows, ({ event, state, revision }) => [event.supplierPaymentId, event.integratorId, event.invoiceReference, event.expiresAt, jsonElement(state), revision, event.createdAt]),
    });
  },
  updateFromStateOnly: true,
  // The = ANY finds the rows by the primary key (joined on the unnest alone, a generic plan may scan the table).
  update: async (tx, rows) => {
    await tx.query({
      name: 'sp-views-update',
      text: `UPDATE sp_supplier_payment_views v SET status = r.status, approving = r.approving, state = r.state, revision = r.revision, updated_at = now()
             FROM unnest($1::text[], $2::text[], $3::boolean[], ${jsonbElements(4)}, $5::bigint[]) AS r (supplier_payment_id, status, approving, state, revision)
             WHERE v.supplier_payment_id = ANY ($1::text[]) AND v.supplier_payment_id = r.supplier_payment_id AND v.revision < r.revision`,
      values: columns(rows, ({ event, state, revision }) => [
        event.supplierPaymentId,
        state.status,
        state.status === 'awaiting_approval' && state.approval !== null,
        jsonElement(state),
        revision,
      ]),
    });
  },
});

/** The sweeps' rows: payments awaiting approval and not being approved (expiry), and approvals whose outcome is not recorded. */
export const SUPPLIER_PAYMENT_SWEEPS: SweptView = {
  table: 'sp_supplier_payment_views',
  idColumn: 'supplier_payment_id',
  expirable: "status = 'awaiting_approval' AND NOT approving",
  stepPending: 'approving',
};

/** Queries on the projection: the list. */
export class SupplierPaymentViews {
  constructor(private readonly pool: Pool) {}

  /**
   * Newest first by created_at (the request's time), then seq among equal times, with the filters. `starting_after` must be one of the integrator's
   * supplier payments of the invoice reference filtered on, of any status: a payment whose status changed
   * between two pages of a status-filtered list still works as a cursor.
   */
  async list(query: ListSupplierPayments): Promise<ListResource<SupplierPaymentResource>> {
    const beforeSeq = query.startingAfter === undefined ? null : await this.seqOf(query.integratorId, query.startingAfter, query.invoiceReference);
    const { rows } = await this.pool.query<{ state: Existing }>({
      name: 'sp-views-list',
      text: `SELECT state FROM sp_supplier_payment_views
             WHERE integrator_id = $1 AND ($2::text IS NULL OR invoice_reference = $2) AND ($3::text IS NULL OR status = $3)
               AND ($4::bigint IS NULL OR (created_at, seq) < ((SELECT created_at FROM sp_supplier_payment_views WHERE seq = $4), $4))
             ORDER BY created_at DESC, seq DESC LIMIT $5`,
      values: [query.integratorId, query.invoiceReference ?? null, query.status ?? null, beforeSeq, query.limit + 1],
    });
    return { object: 'list', data: rows.slice(0, query.limit).map((r) => toSupplierPaymentResource(r.state)), has_more: rows.length > query.limit };
  }

  private async seqOf(integratorId: string, supplierPaymentId: string, invoiceReference: string | undefined): Promise<string> {
    const { rows } = await this.pool.query<{ seq: string }>({
      name: 'sp-views-seq',
      text: 'SELECT seq FROM sp_supplier_payment_views WHERE integrator_id = $1 AND supplier_payment_id = $2 AND ($3::text IS NULL OR invoice_reference = $3)',
      values: [integratorId, supplierPaymentId, invoiceReference ?? null],
    });
    if (!rows[0]) throw new ServiceError('invalid_request', `starting_after '${supplierPaymentId}' is not an id of this list`, 'starting_after');
    return rows[0].seq;
  }
}
