import { ServiceError, type BankAccountResource } from '@pay/contracts';
import type { Currency } from '@pay/kernel';

// ibantools' package is ESM with a CommonJS build for require (which Node and Jest load); its types
// are declared as ESM, so the CommonJS build is required by hand.
// eslint-disable-next-line @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports
const { electronicFormatIBAN, validateIBAN } = require('ibantools') as typeof import('ibantools', { with: { 'resolution-mode': 'import' } });

/** The countries whose accounts take each currency: Algeria, Morocco, Tunisia, and the eight XOF countries (UEMOA). */
export const IBAN_COUNTRIES_BY_CURRENCY: Readonly<Record<Currency, readonly string[]>> = {
  DZD: ['DZ'],
  MAD: ['MA'],
  TND: ['TN'],
  XOF: ['BJ', 'BF', 'CI', 'GW', 'ML', 'NE', 'SN', 'TG'],
};

/** An IBAN the longest country allows (34) with room for the spaces of its printed form. */
const IBAN_TYPED_LENGTH_MAX = 64;

/**
 * The IBAN in its electronic form (no spaces, upper case) and its country, when it is valid by
 * ISO 13616 (country code, that country's length and format, mod-97 remainder 1) and its country
 * uses `currency`; otherwise `400 invalid_request` with `param: "iban"`.
 */
export function checkIban(typed: string, currency: Currency): { iban: string; country: string } {
  const iban = typed.length <= IBAN_TYPED_LENGTH_MAX ? (electronicFormatIBAN(typed.replace(/\s+/g, '')) ?? '') : '';
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban) || !validateIBAN(iban).valid) {
    throw new ServiceError('invalid_request', 'iban is not a valid IBAN (ISO 13616: country code, length, check digits)', 'iban');
  }
  const country = iban.slice(0, 2);
  const countries = IBAN_COUNTRIES_BY_CURRENCY[currency];
  if (!countries.includes(country)) {
    throw new ServiceError('invalid_request', `iban is an account in ${country}: a ${currency} connection pays out to ${countries.join(', ')} only`, 'iban');
  }
  return { iban, country };
}

/** A bank account as stored: the full IBAN is kept for the bank's files, and answered only at creation. */
export interface BankAccount {
  bankAccountId: string;
  integratorId: string;
  connection: string;
  accountHolder: string;
  iban: string;
  country: string;
  currency: Currency;
  createdAt: string;
}

export const toBankAccountResource = (account: BankAccount): BankAccountResource => ({
  id: account.bankAccountId,
  object: 'bank_account',
  connection: account.connection,
  account_holder: account.accountHolder,
  country: account.country,
  iban_last4: account.iban.slice(-4),
  currency: account.currency,
  created_at: account.createdAt,
});
