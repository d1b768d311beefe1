import { CURRENCY_SCALE, type Currency } from '@pay/kernel';

/** Arabic-Indic and Eastern Arabic-Indic digits (an Arabic keyboard's) as Latin digits. */
export const latinDigits = (text: string): string =>
  text.replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => String((d.codePointAt(0)! - (d >= '\u06f0' ? 0x06f0 : 0x0660)) % 10));

/**
 * An amount typed in the currency's units ("12 500.00", "12500,5", "١٢٥٠٠", "1500" XOF) as minor
 * units; spaces ignored; at most the currency's decimals. Undefined when it is not one (0 only when
 * `zeroAllowed`).
 */
export const parseAmount = (typed: string, currency: Currency, zeroAllowed = false): number | undefined => {
  const text = latinDigits(typed).replace(/[\s\u202f\u00a0]/g, '').replace(/[,\u066b]/, '.');
  const scale = CURRENCY_SCALE[currency];
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(text);
  if (!match || (match[2] ?? '').length > scale) return undefined;
  const minor = Number(match[1]) * 10 ** scale + Number((match[2] ?? '').padEnd(scale, '0') || '0');
  if (!Number.isSafeInteger(minor) || (minor === 0 && !zeroAllowed)) return undefined;
  return minor;
};
