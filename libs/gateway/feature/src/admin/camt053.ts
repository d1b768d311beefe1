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
 * predefined entities and numeric character references are decoded here (`decode`), in one pass, and
 * any other reference is refused.
 */
const DOCTYPE = /<!DOCTYPE/i;
const ENTITY = /<!ENTITY/i;
/**
 * A character XML 1.0 does not allow in a document (NUL and the other C0 controls but tab, CR and LF;
 * unpaired surrogates; U+FFFE, U+FFFF): no well-formed statement has one, and PostgreSQL cannot store NUL.
 */
const NOT_XML_CHAR = /[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;
const parser = new XMLParser({
  // In document order, each element with its own attributes: namespaces are resolved below, from the
  // declarations each element carries (the parser keeps prefixes and does not resolve them).
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: false,
  cdataPropName: '#cdata',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
});

/** The namespace the `xml` prefix is bound to by definition (Namespaces in XML 1.0, section 3). */
const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

/** An element as the import reads it: its local name and namespace, unprefixed attributes, text. */
interface XmlElement {
  name: string;
  /** The namespace URI of its name; null when in no namespace. */
  namespace: string | null;
  /** Its unprefixed attributes, decoded. */
  attributes: ReadonlyMap<string, string>;
  children: XmlElement[];
  /** Its character data and CDATA, decoded; null when it holds elements. */
  text: string | null;
}

/** A node of the parser's ordered output: `{tag: children, ':@': attributes}`, `{'#text': …}` or `{'#cdata': [{'#text': …}]}`. */
type OrderedNode = Record<string, unknown>;

const tagOf = (node: OrderedNode): string | undefined => Object.keys(node).find((key) => key !== ':@');

const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** Every `&`: a reference to a predefined entity or a character, to another entity, or a `&` that starts none. */
const REFERENCE = /&(?:(lt|gt|amp|quot|apos);|#([0-9]+);|#x([0-9a-fA-F]+);|[^&;<"']{0,32};|)/g;

/**
 * Text or an attribute value as XML reads it: `&amp;` and the other predefined entities, `&#65;` and
 * `&#x41;` decoded (in one pass: `&amp;lt;` is `&lt;`). A reference to any other entity (a statement
 * declares none: a DOCTYPE is refused) or to a character XML 1.0 does not allow, or to no character,
 * is refused as the document not being well-formed. The parser's own entity decoding leaves an
 * unknown reference as it is, hence this.
 */
const decode = (raw: string): string =>
  raw.includes('&')
    ? raw.replace(REFERENCE, (reference, name: string | undefined, decimal: string | undefined, hex: string | undefined) => {
        if (name !== undefined) return PREDEFINED_ENTITIES[name]!;
        if (reference === '&') throw invalid('the body is not well-formed XML: a & starts no reference (write &amp;)');
        if (decimal === undefined && hex === undefined) throw invalid(`the body is not well-formed XML: ${reference} refers to an entity that is not declared`);
        const codePoint = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
        const character = codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : '';
        if (character === '' || NOT_XML_CHAR.test(character)) throw invalid(`the body is not well-formed XML: ${reference} is not a character XML 1.0 allows`);
        return character;
      })
    : raw;

/** A namespace as a message names it. */
const namespaceName = (namespace: string | null): string => (namespace === null ? 'no namespace' : `the namespace ${namespace}`);

/**
 * The element `tag` of the parser's output, its name resolved against the namespace declarations in
 * scope (`scope`: prefix to URI, '' the default namespace) and its own. A prefix never declared makes
 * the document not well-formed.
 */
function elementOf(tag: string, node: OrderedNode, scope: ReadonlyMap<string, string>): XmlElement {
  const declared = new Map(scope);
  const attributes = new Map<string, string>();
  for (const [key, raw] of Object.entries((node[':@'] ?? {}) as Record<string, string>)) {
    const name = key.slice(1);
    const value = decode(raw);
    if (name === 'xmlns') declared.set('', value);
    else if (name.startsWith('xmlns:')) declared.set(name.slice('xmlns:'.length), value);
    else if (!name.includes(':')) attributes.set(name, value);
  }
  const colon = tag.indexOf(':');
  const prefix = colon < 0 ? '' : tag.slice(0, colon);
  const uri = prefix === 'xml' ? XML_NAMESPACE : declared.get(prefix);
  if (prefix !== '' && !uri) throw invalid(`the body is not well-formed XML: the namespace prefix ${prefix} of ${tag} is not declared`);
  const children: XmlElement[] = [];
  let text = '';
  for (const child of node[tag] as OrderedNode[]) {
    const name = tagOf(child);
    if (name === '#text') text += decode(String(child[name]));
    else if (name === '#cdata') text += (child[name] as OrderedNode[]).map((part) => String(part['#text'] ?? '')).join('');
    else if (name !== undefined && !name.startsWith('?')) children.push(elementOf(name, child, declared));
  }
  return { name: tag.slice(colon + 1), namespace: uri || null, attributes, children, text: children.length > 0 ? null : text };
}

/**
 * The children of `parent` named `name`. Each must be in the camt.053.001.08 namespace: an element
 * of that name in another is refused, never read as if it were the statement's own.
 */
const childrenNamed = (parent: XmlElement | undefined, name: string): XmlElement[] => {
  const found = parent === undefined ? [] : parent.children.filter((child) => child.name === name);
  const foreign = found.find((child) => child.namespace !== CAMT_053_NAMESPACE);
  if (foreign) throw invalid(`${parent!.name}/${name} is in ${namespaceName(foreign.namespace)}: a camt.053.001.08 statement's elements are in ${CAMT_053_NAMESPACE}`);
  return found;
};

/**
 * The child of `parent` named `name`, which the schema allows once: one repeated is refused, never
 * the first read and the others dropped.
 */
const one = (parent: XmlElement | undefined, name: string): XmlElement | undefined => {
  const found = childrenNamed(parent, name);
  if (found.length > 1) throw invalid(`${parent!.name} holds ${name} more than once: a camt.053.001.08 statement allows one`);
  return found[0];
};

/** The element at `names` below `node`, each of which the schema allows once. */
const path = (node: XmlElement | undefined, ...names: string[]): XmlElement | undefined => names.reduce(one, node);

/** An element's text; null when it is absent or holds elements. */
const text = (element: XmlElement | undefined): string | null => element?.text ?? null;

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
const bookingTime = (entry: XmlElement): string | null => {
  const booking = path(entry, 'BookgDt');
  const date = text(path(booking, 'Dt'));
  const dateTime = text(path(booking, 'DtTm'));
  if (date !== null && dateTime !== null) throw invalid('BookgDt holds both Dt and DtTm: a camt.053.001.08 statement has one of them');
  const value = dateTime ?? (date === null ? null : `${date}T00:00:00Z`);
  const day = value === null ? null : /^(\d{4})-(\d{2})-(\d{2})T/.exec(value);
  if (value === null || !day || !isCalendarDay(Number(day[1]), Number(day[2]), Number(day[3]))) return null;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? null : time.toISOString();
};

/** An amount element (`<Amt Ccy="DZD">125.00</Amt>`) in minor units, with its currency. */
const amountOf = (element: XmlElement | undefined): { amount: number | null; currency: string | null } => {
  const currency = element?.attributes.get('Ccy') ?? null;
  return { amount: minorUnits(text(element), currency), currency };
};

/** ISO 20022's ExternalReturnReason1Code: 1 to 4 characters (`AC04`), letters and digits in the code list. */
const RETURN_REASON_CODE = /^[A-Za-z0-9]{1,4}$/;

/** A return's `RtrInf/Rsn/Cd`; empty or blank is none (`return_without_reason`), anything but a code refused. */
const returnCodeOf = (returnInfo: XmlElement | undefined): string | null => {
  const code = text(path(returnInfo, 'Rsn', 'Cd'));
  if (code === null || code.trim() === '') return null;
  if (!RETURN_REASON_CODE.test(code)) throw invalid('RtrInf/Rsn/Cd must be an ISO return reason code, 1 to 4 letters or digits (such as AC04)');
  return code;
};

/**
 * The transactions of one `Ntry`. An entry of one `TxDtls` (or none) is one transaction of the entry's
 * amount. A batch booking, one entry for several transfers, is one transaction a `TxDtls`, each of its
 * own `Amt` (or `AmtDtls/TxAmt/Amt`) and known by the entry's reference and its place; when those amounts
 * are missing or do not add up to the entry's, none of them is read (amount null: `amount_mismatch`).
 */
const transactionsOf = (entry: XmlElement, statementId: string): StatementEntry[] => {
  const booked = amountOf(path(entry, 'Amt'));
  const indicator = text(path(entry, 'CdtDbtInd'));
  const common = {
    creditDebit: indicator === 'CRDT' || indicator === 'DBIT' ? indicator : null,
    status: text(path(entry, 'Sts', 'Cd')) ?? text(path(entry, 'Sts')),
    bookingDate: bookingTime(entry),
  } as const;
  // NtryDtls and TxDtls are both repeatable: every TxDtls of every NtryDtls is a transaction.
  const details = childrenNamed(entry, 'NtryDtls').flatMap((group) => childrenNamed(group, 'TxDtls'));
  const transactions: (XmlElement | undefined)[] = details.length > 0 ? details : [undefined];
  const parts = transactions.map((tx) => (transactions.length === 1 ? booked : amountOf(path(tx, 'Amt') ?? path(tx, 'AmtDtls', 'TxAmt', 'Amt'))));
  const addsUp = parts.every((part) => part.amount !== null && part.currency === booked.currency) && parts.reduce((sum, part) => sum + part.amount!, 0) === booked.amount;
  // The bank's reference is unique across its statements; an entry's own NtryRef, only within one.
  const ntryRef = text(path(entry, 'NtryRef'));
  const bankRef = text(path(entry, 'AcctSvcrRef')) ?? (ntryRef === null ? null : `${statementId}/${ntryRef}`);
  return transactions.map((tx, index): StatementEntry => {
    const returnInfo = path(tx, 'RtrInf');
    const fields = {
      endToEndId: text(path(tx, 'Refs', 'EndToEndId')),
      amount: addsUp ? parts[index]!.amount : null,
      currency: parts[index]!.currency ?? booked.currency,
      ...common,
      returnCode: returnCodeOf(returnInfo),
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
  let document: OrderedNode[];
  try {
    document = parser.parse(xml) as OrderedNode[];
  } catch (error) {
    throw invalid(`the body is not well-formed XML: ${(error as Error).message.slice(0, 200)}`);
  }
  // The body is read as UTF-8 (ISO 20022's encoding): a file that says it is in another is refused, not misread.
  const declared = (document.find((node) => tagOf(node) === '?xml')?.[':@'] as Record<string, string> | undefined)?.['@encoding'];
  if (declared !== undefined && !/^utf-?8$/i.test(declared)) throw invalid(`the statement declares encoding="${declared.slice(0, 40)}": a statement is read in UTF-8 only (encoding="UTF-8", or no encoding declared)`);
  const top = document.find((node) => !tagOf(node)?.startsWith('?') && !tagOf(node)?.startsWith('#'));
  const root = top === undefined ? undefined : elementOf(tagOf(top)!, top, new Map());
  if (root?.name !== 'Document') throw invalid('the body is not an ISO 20022 Document');
  if (root.namespace !== CAMT_053_NAMESPACE) throw invalid(`the Document is in ${namespaceName(root.namespace)}: a camt.053.001.08 statement's is ${CAMT_053_NAMESPACE}`);
  const report = path(root, 'BkToCstmrStmt');
  // GrpHdr is not read, but given twice it is refused as any element the schema allows once.
  path(report, 'GrpHdr');
  const statement = path(report, 'Stmt');
  if (statement === undefined) throw invalid('the Document must hold BkToCstmrStmt with exactly one Stmt');
  const statementId = text(path(statement, 'Id'));
  if (statementId === null || statementId === '' || statementId.length > 35) throw invalid('Stmt/Id is missing or longer than 35 characters');
  const rawEntries = childrenNamed(statement, 'Ntry');
  if (rawEntries.length > STATEMENT_ENTRIES_MAX) throw invalid(`the statement has ${rawEntries.length} entries: at most ${STATEMENT_ENTRIES_MAX} per import`);
  const entries = rawEntries.flatMap((entry, index) => {
    try {
      return transactionsOf(entry, statementId);
    } catch (error) {
      // The entry at fault is named by its place, as finance finds it in the bank's file.
      throw error instanceof ServiceError ? invalid(`Ntry ${index + 1}: ${error.message}`) : error;
    }
  });
  if (entries.length > STATEMENT_ENTRIES_MAX) throw invalid(`the statement has ${entries.length} transactions: at most ${STATEMENT_ENTRIES_MAX} per import`);
  return { statementId, entries };
}
