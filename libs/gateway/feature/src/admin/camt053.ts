import { createHash } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ServiceError, type StatementEntry } from '@pay/contracts';
import { CURRENCY_SCALE, isCurrency, STATEMENT_ENTRIES_MAX } from '@pay/kernel';

/** ISO 20022 bank-to-customer statement, version 8. */
export const CAMT_053_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08';

export interface ParsedStatement {
  statementId: string;
  entries: StatementEntry[];
}

const invalid = (message: string): ServiceError => new ServiceError('invalid_request', message);

/**
 * A DOCTYPE (where external entities and entity bombs are declared) is refused outright: a statement
 * never has one. The parser itself resolves no entity either (processEntities off): the five
 * predefined entities and numeric character references are decoded here (`decode`), in one pass.
 */
const DOCTYPE = /<!DOCTYPE/i;
const ENTITY = /<!ENTITY/i;
/**
 * A character XML 1.0 does not allow in a document (NUL and the other C0 controls but tab, CR and LF;
 * unpaired surrogates; U+FFFE, U+FFFF): no well-formed statement has one, and PostgreSQL cannot store NUL.
 */
const NOT_XML_CHAR = /[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
/** The root element, `Document` (prefixed or not), declaring the camt.053.001.08 namespace. */
const ROOT_IN_NAMESPACE = new RegExp(`^(?:\\s|<\\?[^>]*\\?>|<!--[\\s\\S]*?-->)*<(?:[A-Za-z_][\\w.-]*:)?Document\\b[^>]*\\sxmlns(?::[A-Za-z_][\\w.-]*)?=["']${CAMT_053_NAMESPACE.replace(/\./g, '\\.')}["']`);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => name === 'Stmt' || name === 'Ntry' || name === 'NtryDtls' || name === 'TxDtls',
});

type Node = Record<string, unknown>;

const child = (node: unknown, name: string): unknown => (node !== null && typeof node === 'object' ? (node as Node)[name] : undefined);
const path = (node: unknown, ...names: string[]): unknown => names.reduce((at, name) => child(Array.isArray(at) ? at[0] : at, name), node);
const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const REFERENCE = /&(?:(lt|gt|amp|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));/g;

/**
 * Text or an attribute value as XML reads it: `&amp;` and the other predefined entities, `&#65;` and
 * `&#x41;` decoded (in one pass: `&amp;lt;` is `&lt;`). A reference to a character XML 1.0 does not
 * allow, or to no character, is refused as the document not being well-formed.
 */
const decode = (raw: string): string =>
  raw.includes('&')
    ? raw.replace(REFERENCE, (reference, name: string | undefined, decimal: string | undefined, hex: string | undefined) => {
        if (name !== undefined) return PREDEFINED_ENTITIES[name]!;
        const codePoint = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
        const character = codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : '';
        if (character === '' || NOT_XML_CHAR.test(character)) throw invalid(`the body is not well-formed XML: ${reference} is not a character XML 1.0 allows`);
        return character;
      })
    : raw;

/** An element's text (an element with attributes is `{#text, @attr}`), decoded. */
const text = (node: unknown): string | null => {
  const value = Array.isArray(node) ? node[0] : node;
  if (typeof value === 'string') return decode(value);
  const inner = child(value, '#text');
  return typeof inner === 'string' ? decode(inner) : null;
};

/** A decimal amount in major units as minor units at the currency's decimals; null when it is not one. */
export function minorUnits(amount: string | null, currency: string | null): number | null {
  if (amount === null || currency === null || !isCurrency(currency)) return null;
  const match = /^(\d{1,15})(?:\.(\d{1,5}))?$/.exec(amount);
  if (!match) return null;
  const scale = CURRENCY_SCALE[currency];
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > scale) return null;
  const minor = Number(match[1]) * 10 ** scale + Number(fraction.padEnd(scale, '0') || '0');
  return Number.isSafeInteger(minor) ? minor : null;
}

/** True when year, month and day name a day of the calendar (`Date` would roll 2026-02-30 over to March 2). */
const isCalendarDay = (year: number, month: number, day: number): boolean => {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

/** `BookgDt` (`Dt` or `DtTm`) as an ISO time: a date alone is midnight UTC; a day the calendar lacks is none. */
const bookingTime = (entry: unknown): string | null => {
  const date = text(path(entry, 'BookgDt', 'Dt'));
  const dateTime = text(path(entry, 'BookgDt', 'DtTm'));
  const value = dateTime ?? (date === null ? null : `${date}T00:00:00Z`);
  const day = value === null ? null : /^(\d{4})-(\d{2})-(\d{2})T/.exec(value);
  if (value === null || !day || !isCalendarDay(Number(day[1]), Number(day[2]), Number(day[3]))) return null;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? null : time.toISOString();
};

/** An amount element (`<Amt Ccy="DZD">125.00</Amt>`) in minor units, with its currency. */
const amountOf = (node: unknown): { amount: number | null; currency: string | null } => {
  const ccy = child(Array.isArray(node) ? node[0] : node, '@Ccy');
  const currency = typeof ccy === 'string' ? decode(ccy) : null;
  return { amount: minorUnits(text(node), currency), currency };
};

/**
 * The transactions of one `Ntry`. An entry of one `TxDtls` (or none) is one transaction of the entry's
 * amount. A batch booking, one entry for several transfers, is one transaction a `TxDtls`, each of its
 * own `Amt` (or `AmtDtls/TxAmt/Amt`) and known by the entry's reference and its place; when those amounts
 * are missing or do not add up to the entry's, none of them is read (amount null: `amount_mismatch`).
 */
const transactionsOf = (entry: unknown, statementId: string): StatementEntry[] => {
  const booked = amountOf(path(entry, 'Amt'));
  const indicator = text(path(entry, 'CdtDbtInd'));
  const common = {
    creditDebit: indicator === 'CRDT' || indicator === 'DBIT' ? indicator : null,
    status: text(path(entry, 'Sts', 'Cd')) ?? text(path(entry, 'Sts')),
    bookingDate: bookingTime(entry),
  } as const;
  // NtryDtls and TxDtls are both repeatable: every TxDtls of every NtryDtls is a transaction.
  const details = ((child(entry, 'NtryDtls') ?? []) as unknown[]).flatMap((group) => (child(group, 'TxDtls') ?? []) as unknown[]);
  const transactions: unknown[] = details.length > 0 ? details : [undefined];
  const parts = transactions.map((tx) => (transactions.length === 1 ? booked : amountOf(child(tx, 'Amt') ?? path(tx, 'AmtDtls', 'TxAmt', 'Amt'))));
  const addsUp = parts.every((part) => part.amount !== null && part.currency === booked.currency) && parts.reduce((sum, part) => sum + part.amount!, 0) === booked.amount;
  // The bank's reference is unique across its statements; an entry's own NtryRef, only within one.
  const ntryRef = text(path(entry, 'NtryRef'));
  const bankRef = text(path(entry, 'AcctSvcrRef')) ?? (ntryRef === null ? null : `${statementId}/${ntryRef}`);
  return transactions.map((tx, index): StatementEntry => {
    const returnInfo = child(tx, 'RtrInf');
    const fields = {
      endToEndId: text(path(tx, 'Refs', 'EndToEndId')),
      amount: addsUp ? parts[index]!.amount : null,
      currency: parts[index]!.currency ?? booked.currency,
      ...common,
      returnCode: text(path(returnInfo, 'Rsn', 'Cd')),
      isReturn: returnInfo !== undefined,
    } satisfies Omit<StatementEntry, 'entryRef'>;
    // Without the bank's own reference, the transaction is known by what it says.
    const ref = bankRef === null ? `sha256:${createHash('sha256').update(JSON.stringify(fields)).digest('hex')}` : transactions.length === 1 ? bankRef : `${bankRef}#${index + 1}`;
    return { entryRef: ref.slice(0, 200), ...fields };
  });
};

/**
 * Reads a camt.053.001.08 statement: its `Stmt/Id` and the transactions of each `Ntry` (amount,
 * currency, credit or debit, status, booking date, the transaction's `EndToEndId`, a return's reason).
 * Anything that is not such a statement is `400 invalid_request` naming what is wrong, before anything
 * is applied.
 */
export function parseStatement(xml: string): ParsedStatement {
  const forbidden = NOT_XML_CHAR.exec(xml);
  if (forbidden) throw invalid(`the body holds U+${forbidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at offset ${forbidden.index}, a character XML 1.0 does not allow`);
  if (DOCTYPE.test(xml) || ENTITY.test(xml)) throw invalid('the statement has a DOCTYPE or an entity declaration: refused (a camt.053 statement has neither)');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw invalid(`the body is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  let document: unknown;
  try {
    document = parser.parse(xml);
  } catch (error) {
    throw invalid(`the body is not well-formed XML: ${(error as Error).message.slice(0, 200)}`);
  }
  const root = child(document, 'Document');
  if (root === undefined) throw invalid('the body is not an ISO 20022 Document');
  // Prefixes are removed by the parser, and with them the declarations: the root's is read from the text.
  if (!ROOT_IN_NAMESPACE.test(xml)) throw invalid(`the Document's namespace must be ${CAMT_053_NAMESPACE}`);
  const statements = path(root, 'BkToCstmrStmt', 'Stmt');
  if (!Array.isArray(statements) || statements.length !== 1) throw invalid('the Document must hold BkToCstmrStmt with exactly one Stmt');
  const statement = statements[0] as Node;
  const statementId = text(statement['Id']);
  if (statementId === null || statementId === '' || statementId.length > 35) throw invalid('Stmt/Id is missing or longer than 35 characters');
  const rawEntries = (statement['Ntry'] ?? []) as unknown[];
  if (rawEntries.length > STATEMENT_ENTRIES_MAX) throw invalid(`the statement has ${rawEntries.length} entries: at most ${STATEMENT_ENTRIES_MAX} per import`);
  const entries = rawEntries.flatMap((entry) => transactionsOf(entry, statementId));
  if (entries.length > STATEMENT_ENTRIES_MAX) throw invalid(`the statement has ${entries.length} transactions: at most ${STATEMENT_ENTRIES_MAX} per import`);
  return { statementId, entries };
}
