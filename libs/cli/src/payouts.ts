import { readFile, writeFile } from 'node:fs/promises';
import { PaymentsAdmin, type Currency, type Payments } from '@pay/sdk';
import { UsageError, type Settings } from './settings';

/** A country whose IBANs take each currency, and a sandbox account number (BBAN) of that country's format. */
const SANDBOX_BBAN: Readonly<Record<Currency, [string, string]>> = {
  DZD: ['DZ', '0002100001113000000570'],
  MAD: ['MA', '011519000001205000534921'],
  TND: ['TN', '10006035183598478831'],
  XOF: ['SN', 'SA0100152000004563452001'],
};

/** An IBAN with its check digits (ISO 13616, mod 97) for a sandbox account in the currency's country. */
export function sandboxIban(currency: Currency): string {
  const [country, bban] = SANDBOX_BBAN[currency];
  const digits = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  return `${country}${String(98 - Number(BigInt(digits) % 97n)).padStart(2, '0')}${bban}`;
}

/** A camt.053.001.08 statement of one entry about a payout: its booking (`paid`) or its return (`AC04`). */
export function sandboxStatement(payout: { id: string; amount: number; currency: Currency }, outcome: 'paid' | 'returned', amountText: string): string {
  const today = new Date().toISOString().slice(0, 10);
  const ref = `SBX-${payout.id}-${outcome}`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>${ref}</MsgId><CreDtTm>${new Date().toISOString()}</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${ref.slice(0, 35)}</Id>
      <CreDtTm>${new Date().toISOString()}</CreDtTm>
      <Acct><Id><Othr><Id>PAYOUTS-${payout.currency}</Id></Othr></Id></Acct>
      <Ntry>
        <NtryRef>${ref}</NtryRef>
        <Amt Ccy="${payout.currency}">${amountText}</Amt>
        <CdtDbtInd>${outcome === 'paid' ? 'DBIT' : 'CRDT'}</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${today}</Dt></BookgDt>
        <NtryDtls><TxDtls><Refs><EndToEndId>${payout.id}</EndToEndId></Refs>${outcome === 'returned' ? '<RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf>' : ''}</TxDtls></NtryDtls>
      </Ntry>
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
}

const SCALE: Readonly<Record<Currency, number>> = { DZD: 2, MAD: 2, TND: 3, XOF: 0 };
export const majorUnits = (amount: number, currency: Currency): string => (SCALE[currency] === 0 ? String(amount) : (amount / 10 ** SCALE[currency]).toFixed(SCALE[currency]));

export const adminClient = (settings: Settings): PaymentsAdmin => {
  if (!settings.adminKey) throw new UsageError('no admin key: set PAY_ADMIN_KEY or pass --admin-key (npm start keeps it in .data/admin-api-key)');
  return new PaymentsAdmin({ adminKey: settings.adminKey, baseUrl: settings.baseUrl });
};

export interface PayoutsFlags {
  connection?: string;
  'bank-account'?: string;
  amount?: string;
  currency?: string;
  description?: string;
  out?: string;
}

interface PayoutsIo {
  out(line: string): void;
  err(line: string): void;
}

export const PAYOUTS_COMMANDS = ['create', 'batch', 'file', 'import-statement'] as const;

/** `payments payouts <what>`: an integrator's payout (API key), finance's batch, file and statement (admin key). */
export async function payouts(what: string | undefined, args: string[], flags: PayoutsFlags, settings: Settings, client: () => Payments, io: PayoutsIo): Promise<number> {
  switch (what) {
    case 'create': {
      if (!flags.connection || !flags['bank-account'] || !flags.amount || !flags.currency) throw new UsageError('payouts create needs --connection, --bank-account, --amount (minor units) and --currency');
      if (!/^\d+$/.test(flags.amount)) throw new UsageError('--amount is an integer in minor units');
      const payout = await client().payouts.create({
        connection: flags.connection,
        bank_account: flags['bank-account'],
        amount: Number(flags.amount),
        currency: flags.currency.toUpperCase() as Currency,
        ...(flags.description === undefined ? {} : { description: flags.description }),
      });
      io.out(`${payout.id} ${payout.status} ${payout.amount} ${payout.currency}`);
      return 0;
    }
    case 'batch': {
      if (!flags.currency) throw new UsageError('payouts batch needs --currency');
      const batch = await adminClient(settings).payoutBatches.create({ currency: flags.currency.toUpperCase() as Currency });
      io.out(`${batch.id} ${batch.count} ${batch.total_amount} ${batch.currency}`);
      return 0;
    }
    case 'file': {
      const [batchId] = args;
      if (!batchId) throw new UsageError('payouts file needs the batch id (pob_…)');
      const xml = await adminClient(settings).payoutBatches.file(batchId);
      if (flags.out) {
        await writeFile(flags.out, xml);
        io.err(`Wrote the pain.001.001.09 file of ${batchId} to ${flags.out}`);
      } else io.out(xml.trimEnd());
      return 0;
    }
    case 'import-statement': {
      const [file] = args;
      if (!file) throw new UsageError('payouts import-statement needs the statement file (camt.053.001.08 XML)');
      const xml = await readFile(file, 'utf8').catch((error: Error) => {
        throw new UsageError(`cannot read ${file}: ${error.message}`);
      });
      const result = await adminClient(settings).bankStatements.import(xml);
      io.out(`${result.statement_id} entries ${result.entries} paid ${result.paid} failed ${result.failed} unmatched ${result.unmatched.length}${result.duplicate ? ' (duplicate: nothing applied)' : ''}`);
      for (const entry of result.unmatched) io.out(`  unmatched ${entry.end_to_end_id ?? '-'} ${entry.amount ?? '-'} ${entry.currency ?? '-'} ${entry.reason}`);
      return 0;
    }
    default:
      throw new UsageError(`payouts takes one of ${PAYOUTS_COMMANDS.join(', ')}`);
  }
}
