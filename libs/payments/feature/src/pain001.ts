import { create } from 'xmlbuilder2';
import { decimalAmount, type Currency } from '@pay/kernel';

/** ISO 20022 customer credit transfer initiation, version 9: the file a batch of payouts is sent to the bank in. */
export const PAIN_001_NAMESPACE = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

/** The ISO 20022 text types the file fills from our strings (Max140Text, Max35Text). */
const NAME_LENGTH_MAX = 140;

export interface CreditTransfer {
  /** The payout id, sent as `EndToEndId`: the bank's statement names it back. */
  endToEndId: string;
  amount: number;
  creditorName: string;
  creditorIban: string;
  remittance: string | null;
}

export interface CreditTransferFile {
  /** The batch id: `MsgId` and `PmtInfId`. */
  messageId: string;
  createdAt: string;
  /** The requested execution date (ISO date). */
  executionDate: string;
  currency: Currency;
  /** The platform as debtor: its name and its account at the bank (`Othr/Id`, by agreement with the bank). */
  debtorName: string;
  debtorAccount: string;
  transfers: CreditTransfer[];
}

/**
 * The pain.001.001.09 document of a batch, built with an XML library (every value escaped by it):
 * one `PmtInf`, `NbOfTxs` and `CtrlSum` in both headers, one `CdtTrfTxInf` per payout with its amount
 * in major units at the currency's decimals (`1250000` DZD is `12500.00`).
 */
export function buildCreditTransferFile(file: CreditTransferFile): string {
  const count = String(file.transfers.length);
  const total = decimalAmount(
    file.transfers.reduce((sum, t) => sum + t.amount, 0),
    file.currency,
  );
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(PAIN_001_NAMESPACE, 'Document');
  const initiation = root.ele('CstmrCdtTrfInitn');
  const header = initiation.ele('GrpHdr');
  header.ele('MsgId').txt(file.messageId);
  header.ele('CreDtTm').txt(file.createdAt);
  header.ele('NbOfTxs').txt(count);
  header.ele('CtrlSum').txt(total);
  header.ele('InitgPty').ele('Nm').txt(clip(file.debtorName));
  const payment = initiation.ele('PmtInf');
  payment.ele('PmtInfId').txt(file.messageId);
  payment.ele('PmtMtd').txt('TRF');
  // One statement entry a payout: a batch booked as one sum would leave the bank's statement to carry
  // each payout's amount in its transaction details, which not every bank fills in.
  payment.ele('BtchBookg').txt('false');
  payment.ele('NbOfTxs').txt(count);
  payment.ele('CtrlSum').txt(total);
  payment.ele('ReqdExctnDt').ele('Dt').txt(file.executionDate);
  payment.ele('Dbtr').ele('Nm').txt(clip(file.debtorName));
  payment.ele('DbtrAcct').ele('Id').ele('Othr').ele('Id').txt(file.debtorAccount);
  payment.ele('DbtrAgt').ele('FinInstnId').ele('Othr').ele('Id').txt('NOTPROVIDED');
  for (const transfer of file.transfers) {
    const tx = payment.ele('CdtTrfTxInf');
    tx.ele('PmtId').ele('EndToEndId').txt(transfer.endToEndId);
    tx.ele('Amt').ele('InstdAmt', { Ccy: file.currency }).txt(decimalAmount(transfer.amount, file.currency));
    tx.ele('Cdtr').ele('Nm').txt(clip(transfer.creditorName));
    tx.ele('CdtrAcct').ele('Id').ele('IBAN').txt(transfer.creditorIban);
    if (transfer.remittance !== null) tx.ele('RmtInf').ele('Ustrd').txt(clip(transfer.remittance));
  }
  return root.end({ prettyPrint: true });
}

/**
 * What XML 1.0 forbids (C0 controls but tab, CR and LF; unpaired surrogates; U+FFFE, U+FFFF), and the
 * other controls and noncharacters a bank cannot print: the API refuses them, but a row stored before
 * it did is written with a space in their place, so that the file always validates.
 */
const NOT_BANK_TEXT = /[\p{Cc}\p{Noncharacter_Code_Point}\p{Surrogate}]/gu;

/**
 * Text the bank's format bounds at 140 characters (a longer description is cut, never refused):
 * counted by code points as the XSD counts them, so that a cut never splits a surrogate pair.
 */
const clip = (text: string): string => {
  const characters = Array.from(text.replace(NOT_BANK_TEXT, ' '));
  return characters.length > NAME_LENGTH_MAX ? characters.slice(0, NAME_LENGTH_MAX).join('') : characters.join('');
};
