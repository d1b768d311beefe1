/** Test data of the payouts specs: IBANs with valid check digits, camt.053 statements. */

/** An IBAN with valid check digits (ISO 13616: mod 97 remainder 1) for a country and its BBAN. */
export const iban = (country: string, bban: string): string => {
  const digits = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  const check = 98 - Number(BigInt(digits) % 97n);
  return `${country}${String(check).padStart(2, '0')}${bban}`;
};

interface Entry {
  e2e: string | null;
  amount: string;
  currency: string;
  indicator: 'DBIT' | 'CRDT';
  status?: string;
  ref?: string;
  returnCode?: string;
  bookingDate?: string;
}

/** A camt.053.001.08 statement with these entries. */
export const statement = (id: string, entries: Entry[]): string => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG-${id}</MsgId><CreDtTm>2026-11-28T10:00:00Z</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${id}</Id>
      <CreDtTm>2026-11-28T10:00:00Z</CreDtTm>
      <Acct><Id><Othr><Id>PAYOUTS</Id></Othr></Id></Acct>
${entries
  .map(
    (e) => `      <Ntry>
        ${e.ref ? `<NtryRef>${e.ref}</NtryRef>` : ''}
        <Amt Ccy="${e.currency}">${e.amount}</Amt>
        <CdtDbtInd>${e.indicator}</CdtDbtInd>
        <Sts><Cd>${e.status ?? 'BOOK'}</Cd></Sts>
        <BookgDt><Dt>${e.bookingDate ?? '2026-11-28'}</Dt></BookgDt>
        <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
        <NtryDtls><TxDtls>
          ${e.e2e ? `<Refs><EndToEndId>${e.e2e}</EndToEndId></Refs>` : ''}
          ${e.returnCode ? `<RtrInf><Rsn><Cd>${e.returnCode}</Cd></Rsn></RtrInf>` : ''}
        </TxDtls></NtryDtls>
      </Ntry>`,
  )
  .join('\n')}
    </Stmt>
  </BkToCstmrStmt>
</Document>`;
