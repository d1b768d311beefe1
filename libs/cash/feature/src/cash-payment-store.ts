import { randomInt } from 'node:crypto';
import type { Pool } from 'pg';
import { dammCheckDigit, paymentReferenceFrom } from '@pay/cash-domain';
import { PAYMENT_REFERENCE_RANDOM_DIGITS, RECEIPT_SEQUENCE_DIGITS, RESERVE_ATTEMPTS_MAX } from '@pay/kernel';

const randomDigits = (count: number): string => Array.from({ length: count }, () => String(randomInt(10))).join('');

/** Payment references and receipt numbers, in the cash app's tables. */
export class CashPaymentNumbers {
  constructor(private readonly pool: Pool) {}

  /**
   * The reference of a cash payment: the one reserved for it already (a retried create), or a new random
   * one, unique among open cash payments (the partial unique index decides; a collision draws again).
   */
  async reserveReference(cashPaymentId: string): Promise<string> {
    for (let attempt = 1; attempt <= RESERVE_ATTEMPTS_MAX; attempt++) {
      const existing = await this.pool.query<{ reference: string }>({
        name: 'cash-reference-of-payment',
        text: 'SELECT reference FROM cash_payment_references WHERE cash_payment_id = $1',
        values: [cashPaymentId],
      });
      if (existing.rows[0]) return existing.rows[0].reference;
      const inserted = await this.pool.query<{ reference: string }>({
        name: 'cash-reference-reserve',
        text: 'INSERT INTO cash_payment_references (cash_payment_id, reference) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING reference',
        values: [cashPaymentId, paymentReferenceFrom(randomDigits(PAYMENT_REFERENCE_RANDOM_DIGITS))],
      });
      if (inserted.rows[0]) return inserted.rows[0].reference;
    }
    throw new Error(`no free payment reference for ${cashPaymentId} after ${RESERVE_ATTEMPTS_MAX} attempts`);
  }

  /** The cash payment of a reference: the open one, else the latest that held it (references are reused once closed). */
  async paymentOfReference(reference: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ cash_payment_id: string }>({
      name: 'cash-payment-of-reference',
      text: 'SELECT cash_payment_id FROM cash_payment_references WHERE reference = $1 ORDER BY open DESC, reserved_at DESC LIMIT 1',
      values: [reference],
    });
    return rows[0]?.cash_payment_id;
  }

  /** A new receipt number, `R-` + 8 digits of a sequence + `-` + their Damm check digit: `R-00000042-7`. */
  async nextReceiptNumber(): Promise<string> {
    const { rows } = await this.pool.query<{ n: string }>({ name: 'cash-receipt-next', text: "SELECT nextval('cash_receipt_numbers')::text AS n" });
    const digits = rows[0]!.n.padStart(RECEIPT_SEQUENCE_DIGITS, '0');
    return `R-${digits}-${dammCheckDigit(digits)}`;
  }
}
