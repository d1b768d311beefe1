import { ServiceError } from '@pay/contracts';
import { parseStatement } from './camt053';

/** A camt.053.001.08 statement of one entry, with `id` as its Stmt/Id and `e2e` as the entry's EndToEndId. */
const statementOf = ({ id = 'STMT-1', e2e = 'po_abc', ref = 'REF-1', bookingDate = '2026-11-28' }: { id?: string; e2e?: string; ref?: string; bookingDate?: string } = {}): string => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2026-11-28T10:00:00Z</CreDtTm></GrpHdr>
    <Stmt>
      <Id>${id}</Id>
      <Ntry>
        <NtryRef>${ref}</NtryRef>
        <Amt Ccy="DZD">125.00</Amt>
        <CdtDbtInd>DBIT</CdtDbtInd>
        <Sts><Cd>BOOK</Cd></Sts>
        <BookgDt><Dt>${bookingDate}</Dt></BookgDt>
        <NtryDtls><TxDtls><Refs><EndToEndId>${e2e}</EndToEndId></Refs></TxDtls></NtryDtls>
      </Ntry>
    </Stmt>
  </BkToCstmrStmt>
</Document>`;

/** The error parseStatement throws for `xml`, if any. */
const refusalOf = (xml: string): ServiceError | undefined => {
  try {
    parseStatement(xml);
    return undefined;
  } catch (error) {
    return error as ServiceError;
  }
};

describe('camt.053 statement parser', () => {
  it('reads a statement', () => {
    expect(parseStatement(statementOf())).toEqual({
      statementId: 'STMT-1',
      entries: [expect.objectContaining({ entryRef: 'STMT-1/REF-1', endToEndId: 'po_abc', amount: 12_500, currency: 'DZD', creditDebit: 'DBIT', status: 'BOOK', bookingDate: '2026-11-28T00:00:00.000Z' })],
    });
  });

  it("an entry's NtryRef identifies it within its statement only; the bank's AcctSvcrRef across statements", () => {
    const refOf = (xml: string) => parseStatement(xml).entries[0]!.entryRef;
    // Banks number the entries of each statement 1, 2, 3: entry 1 of tomorrow's is another entry.
    expect(refOf(statementOf({ id: 'STMT-2', ref: '1' }))).not.toBe(refOf(statementOf({ id: 'STMT-1', ref: '1' })));
    const withBankRef = (id: string) => statementOf({ id, ref: '1' }).replace('<NtryRef>1</NtryRef>', '<NtryRef>1</NtryRef><AcctSvcrRef>BANK-REF-9</AcctSvcrRef>');
    expect(refOf(withBankRef('STMT-2'))).toBe('BANK-REF-9');
    expect(refOf(withBankRef('STMT-1'))).toBe('BANK-REF-9');
  });

  it('a NUL or another character XML 1.0 forbids, anywhere in the body, is 400 invalid_request before parsing', () => {
    for (const hostile of [statementOf({ id: 'STMT\u00001' }), statementOf({ e2e: 'po_\u0000abc' }), statementOf({ ref: 'R\u0001' }), statementOf({ id: 'S\u001f' }), statementOf({ id: 'S\ufffe' }), statementOf({ id: 'S\uffff' }), statementOf({ id: 'S\ud800' }), `${statementOf()}\u0000`]) {
      const refusal = refusalOf(hostile);
      expect(refusal).toBeInstanceOf(ServiceError);
      expect(refusal).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('XML 1.0') });
    }
    // Tab, CR and LF are XML's own whitespace.
    expect(parseStatement(statementOf().replace(/\n/g, '\r\n').replace(/  /g, '\t')).statementId).toBe('STMT-1');
  });

  it('decodes the five predefined entities and numeric character references in text and attributes, once', () => {
    const parsed = parseStatement(statementOf({ id: 'Z&amp;5 &lt;&gt;&quot;&apos; &#65;&#x42;&#x1F600; &amp;lt;', ref: 'R&amp;1' }).replace('Ccy="DZD"', 'Ccy="&#x44;ZD"'));
    expect(parsed.statementId).toBe('Z&5 <>"\' AB\u{1F600} &lt;');
    expect(parsed.entries[0]).toMatchObject({ entryRef: `${parsed.statementId}/R&1`, currency: 'DZD', amount: 12_500 });
  });

  it('a character reference to a character XML 1.0 does not allow, or to no character, is 400 invalid_request', () => {
    for (const reference of ['&#0;', '&#x0;', '&#31;', '&#xFFFE;', '&#xD800;', '&#x110000;', '&#99999999999;']) {
      expect(refusalOf(statementOf({ id: `S${reference}` }))).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('a reference to an entity never declared is not well-formed: 400 invalid_request naming it, in text or in an attribute', () => {
    for (const xml of [statementOf({ id: 'X&x;' }), statementOf({ ref: 'R&nbsp;1' }), statementOf().replace('Ccy="DZD"', 'Ccy="DZD&x;"'), statementOf({ id: 'X&#;' }), statementOf({ id: 'X&#x;' })]) {
      expect(refusalOf(xml)).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/not well-formed XML: &(x|nbsp|#|#x); /) });
    }
    expect(refusalOf(statementOf().replace('Ccy="DZD"', 'Ccy="D&amp;Z & D"'))).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('a & starts no reference') });
  });

  it('a statement that declares an encoding other than UTF-8 is 400 invalid_request naming it', () => {
    expect(refusalOf(statementOf().replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'))).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('ISO-8859-1') });
    expect(parseStatement(statementOf().replace('encoding="UTF-8"', "encoding='utf-8'")).statementId).toBe('STMT-1');
    expect(parseStatement(statementOf().replace(' encoding="UTF-8"', '')).statementId).toBe('STMT-1');
  });

  it('a booking date that is no day of the calendar (February 30) is no booking date, not the day it rolls over to', () => {
    for (const bookingDate of ['2026-02-30', '2026-02-29', '2026-04-31', '2026-13-01', '2026-00-10']) {
      expect(parseStatement(statementOf({ bookingDate })).entries[0]!.bookingDate).toBeNull();
    }
    expect(parseStatement(statementOf({ bookingDate: '2028-02-29' })).entries[0]!.bookingDate).toBe('2028-02-29T00:00:00.000Z');
    const dateTime = (value: string) => parseStatement(statementOf().replace('<Dt>2026-11-28</Dt>', `<DtTm>${value}</DtTm>`)).entries[0]!.bookingDate;
    expect(dateTime('2026-02-30T10:00:00Z')).toBeNull();
    expect(dateTime('2026-03-01T01:00:00+02:00')).toBe('2026-02-28T23:00:00.000Z');
  });

  describe('every element the import reads is in the camt.053.001.08 namespace', () => {
    const NS = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08';
    const body = statementOf().replace(/^<\?xml[^>]*>\s*<Document[^>]*>/, '').replace(/<\/Document>$/, '');

    it.each([
      ['Document in another default namespace, camt.053 bound to an unused prefix', `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09" xmlns:c="${NS}">${body}</Document>`, 'pain.001.001.09'],
      ['Document in no namespace, camt.053 bound to an unused prefix', `<Document xmlns:c="${NS}">${body}</Document>`, 'no namespace'],
      ['a prefixed Document in another namespace', `<x:Document xmlns:x="urn:evil" xmlns="${NS}">${body}</x:Document>`, 'urn:evil'],
      ['BkToCstmrStmt in another namespace', `<Document xmlns="${NS}">${body.replace('<BkToCstmrStmt>', '<BkToCstmrStmt xmlns="urn:evil">')}</Document>`, 'urn:evil'],
      ['an entry in another namespace', `<Document xmlns="${NS}">${body.replace('<Ntry>', '<e:Ntry xmlns:e="urn:evil">').replace('</Ntry>', '</e:Ntry>')}</Document>`, 'urn:evil'],
      ['an EndToEndId in another namespace', `<Document xmlns="${NS}">${body.replace('<EndToEndId>', '<EndToEndId xmlns="urn:evil">')}</Document>`, 'urn:evil'],
      ['an amount in no namespace', `<Document xmlns="${NS}">${body.replace('<Amt Ccy', '<Amt xmlns="" Ccy')}</Document>`, 'no namespace'],
    ])('%s is 400 invalid_request naming the namespace found', (_what, xml, found) => {
      expect(refusalOf(xml)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(found) });
    });

    it("an element the import does not read may be in another namespace (a bank's supplementary data)", () => {
      const supplemented = statementOf().replace('</Ntry>', '<SplmtryData><Envlp><b:Note xmlns:b="urn:bank:notes">batch 7</b:Note></Envlp></SplmtryData></Ntry>');
      expect(parseStatement(supplemented)).toEqual(parseStatement(statementOf()));
    });

    it('a prefix bound to the namespace reads as the default namespace does; a prefix never declared is not well-formed', () => {
      const prefixed = `<c:Document xmlns:c="${NS}">${body.replace(/<(\/?)([A-Za-z]+)/g, '<$1c:$2')}</c:Document>`;
      expect(parseStatement(prefixed)).toEqual(parseStatement(statementOf()));
      expect(refusalOf(`<c:Document xmlns:x="${NS}">${body}</c:Document>`)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('prefix c') });
    });
  });

  describe('an element the schema allows once, repeated, is 400 invalid_request naming it (never the first read, the rest dropped)', () => {
    const twice = (element: string) => (xml: string) => xml.replace(element, `${element}${element}`);
    it.each([
      ['BkToCstmrStmt', (xml: string) => xml.replace(/<BkToCstmrStmt>[\s\S]*<\/BkToCstmrStmt>/, (whole) => `${whole}${whole.replace('STMT-1', 'STMT-2')}`)],
      ['Stmt', (xml: string) => xml.replace(/<Stmt>[\s\S]*<\/Stmt>/, (whole) => `${whole}${whole}`)],
      ['GrpHdr', twice('<GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2026-11-28T10:00:00Z</CreDtTm></GrpHdr>')],
      ['Id', twice('<Id>STMT-1</Id>')],
      ['NtryRef', twice('<NtryRef>REF-1</NtryRef>')],
      ['Amt', twice('<Amt Ccy="DZD">125.00</Amt>')],
      ['CdtDbtInd', twice('<CdtDbtInd>DBIT</CdtDbtInd>')],
      ['Sts', twice('<Sts><Cd>BOOK</Cd></Sts>')],
      ['Cd', twice('<Cd>BOOK</Cd>')],
      ['BookgDt', twice('<BookgDt><Dt>2026-11-28</Dt></BookgDt>')],
      ['Dt', twice('<Dt>2026-11-28</Dt>')],
      ['Refs', twice('<Refs><EndToEndId>po_abc</EndToEndId></Refs>')],
      ['EndToEndId', twice('<EndToEndId>po_abc</EndToEndId>')],
      ['RtrInf', (xml: string) => xml.replace('</Refs>', '</Refs><RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf><RtrInf><Rsn><Cd>AC01</Cd></Rsn></RtrInf>')],
      ['Cd', (xml: string) => xml.replace('</Refs>', '</Refs><RtrInf><Rsn><Cd>AC04</Cd><Cd>AC01</Cd></Rsn></RtrInf>')],
      ['AcctSvcrRef', (xml: string) => xml.replace('<NtryRef>REF-1</NtryRef>', '<NtryRef>REF-1</NtryRef><AcctSvcrRef>A</AcctSvcrRef><AcctSvcrRef>B</AcctSvcrRef>')],
    ])('%s', (name, repeat) => {
      const xml = repeat(statementOf());
      expect(xml).not.toBe(statementOf());
      expect(refusalOf(xml)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(`${name} more than once`) });
    });

    it('BookgDt holds Dt or DtTm, not both', () => {
      expect(refusalOf(statementOf().replace('<Dt>2026-11-28</Dt>', '<Dt>2026-11-28</Dt><DtTm>2026-11-29T10:00:00Z</DtTm>'))).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('BookgDt') });
    });
  });

  describe("a return's reason code (ExternalReturnReason1Code: 1 to 4 letters or digits)", () => {
    const returned = (reason: string) => statementOf().replace('<CdtDbtInd>DBIT</CdtDbtInd>', '<CdtDbtInd>CRDT</CdtDbtInd>').replace('</Refs>', `</Refs><RtrInf><Rsn>${reason}</Rsn></RtrInf>`);

    it('is read as given', () => {
      expect(parseStatement(returned('<Cd>AC04</Cd>')).entries[0]).toMatchObject({ isReturn: true, returnCode: 'AC04' });
    });

    it('empty or blank counts as missing (return_without_reason)', () => {
      for (const reason of ['<Cd></Cd>', '<Cd/>', '<Cd>   </Cd>', '<Cd>\t\n</Cd>', '']) {
        expect(parseStatement(returned(reason)).entries[0]).toMatchObject({ isReturn: true, returnCode: null });
      }
    });

    it('anything else is 400 invalid_request naming the entry', () => {
      for (const code of ['A'.repeat(1000), 'AC045', '&lt;img src=x onerror=alert(1)&gt;', 'AC 4', 'AC-4', 'ÀC04']) {
        expect(refusalOf(returned(`<Cd>${code}</Cd>`))).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^Ntry 1: .*RtrInf\/Rsn\/Cd/) });
      }
    });
  });

  describe('a batch booking: one entry for several transfers', () => {
    const batchOf = (entryAmount: string, parts: string[], { ref = '<AcctSvcrRef>B-7</AcctSvcrRef>' } = {}) =>
      statementOf().replace(
        /<NtryRef>REF-1<\/NtryRef>[\s\S]*<\/NtryDtls>/,
        `${ref}<Amt Ccy="DZD">${entryAmount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-28</Dt></BookgDt>
        <NtryDtls>${parts.map((part, i) => `<TxDtls><Refs><EndToEndId>po_${i + 1}</EndToEndId></Refs>${part}</TxDtls>`).join('')}</NtryDtls>`,
      );

    it('is one transaction a TxDtls, each of its own amount, known by the entry reference and its place', () => {
      const { entries } = parseStatement(batchOf('200.00', ['<Amt Ccy="DZD">125.00</Amt>', '<AmtDtls><TxAmt><Amt Ccy="DZD">75.00</Amt></TxAmt></AmtDtls>']));
      expect(entries).toEqual([
        expect.objectContaining({ entryRef: 'B-7#1', endToEndId: 'po_1', amount: 12_500, currency: 'DZD', creditDebit: 'DBIT', status: 'BOOK', bookingDate: '2026-11-28T00:00:00.000Z' }),
        expect.objectContaining({ entryRef: 'B-7#2', endToEndId: 'po_2', amount: 7_500, currency: 'DZD', creditDebit: 'DBIT', status: 'BOOK', bookingDate: '2026-11-28T00:00:00.000Z' }),
      ]);
    });

    it('spread over several NtryDtls is every TxDtls of each', () => {
      const xml = batchOf('200.00', ['<Amt Ccy="DZD">125.00</Amt>', '<Amt Ccy="DZD">75.00</Amt>']).replace('</TxDtls><TxDtls>', '</TxDtls></NtryDtls><NtryDtls><TxDtls>');
      expect(xml.match(/<NtryDtls>/g)).toHaveLength(2);
      expect(parseStatement(xml).entries.map((entry) => [entry.endToEndId, entry.amount])).toEqual([
        ['po_1', 12_500],
        ['po_2', 7_500],
      ]);
    });

    it('whose amounts are missing, of another currency or do not add up to the entry is read with no amount', () => {
      for (const parts of [['<Amt Ccy="DZD">125.00</Amt>', ''], ['<Amt Ccy="DZD">125.00</Amt>', '<Amt Ccy="DZD">70.00</Amt>'], ['<Amt Ccy="DZD">125.00</Amt>', '<Amt Ccy="MAD">75.00</Amt>']]) {
        const { entries } = parseStatement(batchOf('200.00', parts));
        expect(entries.map((entry) => [entry.endToEndId, entry.amount])).toEqual([
          ['po_1', null],
          ['po_2', null],
        ]);
      }
    });

    it('without a bank reference, each transaction is known by its own content', () => {
      const { entries } = parseStatement(batchOf('250.00', ['<Amt Ccy="DZD">125.00</Amt>', '<Amt Ccy="DZD">125.00</Amt>'], { ref: '' }));
      expect(new Set(entries.map((entry) => entry.entryRef)).size).toBe(2);
      expect(entries.every((entry) => entry.entryRef.startsWith('sha256:'))).toBe(true);
    });
  });
});
