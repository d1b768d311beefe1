import { pain001SchemaCheck, xmllintAgainst } from '@pay/testing';
import { buildCreditTransferFile, type CreditTransfer } from './pain001';

const schemaCheck = pain001SchemaCheck();

const fileOf = (transfers: Array<Partial<CreditTransfer>>): string =>
  buildCreditTransferFile({
    messageId: 'pob_unit1',
    createdAt: '2026-11-28T10:00:00.000Z',
    executionDate: '2026-11-28',
    currency: 'DZD',
    debtorName: 'Platform SPA',
    debtorAccount: 'PAYOUTS-DZD',
    transfers: transfers.map((t, index) => ({
      endToEndId: `po_unit${index}`,
      amount: 12_500,
      creditorName: 'Atlas Trading SARL',
      creditorIban: 'DZ5800021000011130000005',
      remittance: null,
      ...t,
    })),
  });

/** xmllint's verdict on the file against the XSD: its status and what it printed. */
const lint = (xml: string) => xmllintAgainst((schemaCheck as { xsd: string }).xsd, xml);

/** The texts of the elements named `name`, decoded as an XML parser reads them. */
const textsOf = (xml: string, name: string): string[] =>
  [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map(([, inner]) =>
    inner!.replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16))).replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'),
  );

describe('pain.001 credit transfer file', () => {
  const validates = 'xsd' in schemaCheck ? it : it.skip;

  validates('asks the bank to book each payout as an entry of its own (BtchBookg false), and validates', () => {
    const xml = fileOf([{}, { amount: 7_000 }]);
    expect(textsOf(xml, 'BtchBookg')).toEqual(['false']);
    expect(lint(xml).status).toBe(0);
  });

  validates('a name or description stored with characters XML 1.0 forbids is written without them, and the file validates', () => {
    const xml = fileOf([
      { creditorName: 'A\u0001B\u001fC\u007fD\ufffeE\uffff', remittance: 'Invoice\u000b 42\u0000' },
      { creditorName: 'Tab\tand\r\nbreaks\u0085', remittance: 'lone \ud800 surrogate' },
    ]);
    const { status, stderr } = lint(xml);
    expect(stderr).toContain('validates');
    expect(status).toBe(0);
    expect(textsOf(xml, 'Nm')).toContain('A B C D E ');
    expect(textsOf(xml, 'Ustrd')).toContain('Invoice  42 ');
  });

  it('a name of 140 characters is kept whole; a longer one is cut at 140 characters, never inside a surrogate pair', () => {
    const emoji = '\u{1F600}';
    const long = `a${emoji.repeat(70)}`;
    const longer = `b${emoji.repeat(200)}`;
    const names = textsOf(fileOf([{ creditorName: long }, { creditorName: longer, remittance: longer }]), 'Nm');
    expect(names).toContain(long);
    expect(names).toContain(`b${emoji.repeat(139)}`);
    expect(names.join('')).not.toContain('\ufffd');
  });

  validates('a file of names and descriptions cut at 140 characters validates', () => {
    const emoji = '\u{1F600}';
    const { status, stderr } = lint(fileOf([{ creditorName: `a${emoji.repeat(300)}`, remittance: `é${emoji.repeat(300)}` }]));
    expect(stderr).toContain('validates');
    expect(status).toBe(0);
  });
});
