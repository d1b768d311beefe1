import { getExampleNumber, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import mobileExamples from 'libphonenumber-js/mobile/examples';
import { CURRENCIES, PHONE_LENGTH_MAX, PHONE_LENGTH_MIN, type Currency } from '@pay/kernel';
import { COUNTRY_OF_CURRENCY } from '@pay/hosted-ui';

/** A phone as the back office registers it (digits and spaces, optionally after +). */
const REGISTERED = new RegExp(`^\\+?[0-9 ]{${PHONE_LENGTH_MIN},${PHONE_LENGTH_MAX}}$`);
/** What a person may type in the phone field at most: anything longer is no phone, and costs no parsing. */
const TYPED_LENGTH_MAX = 40;

export interface TypedPhone {
  /** One spelling per number (E.164 when it parses): the sign-in limiter counts attempts per number, not per spelling. */
  login: string;
  /** The spellings a registered phone may have, to look up; empty when the text is no phone. */
  candidates: string[];
}

/**
 * A phone as customers type it (`0555 12 34 56`, `+213 555 12 34 56`, `00213…`, `(0555) 12-34-56`,
 * Arabic-Indic or Persian digits…), read by libphonenumber-js in the country of the payment's
 * currency. The candidates are the forms the back office registers: E.164, its digits, the national
 * number with its trunk prefix, and the text as typed.
 */
export const typedPhone = (typed: string, currency: Currency): TypedPhone => {
  const text = typed.trim();
  if (text.length === 0 || text.length > TYPED_LENGTH_MAX) return { login: text.slice(0, TYPED_LENGTH_MAX), candidates: [] };
  const parsed = parsePhoneNumberFromString(text, COUNTRY_OF_CURRENCY[currency] as CountryCode);
  const forms = parsed ? [parsed.number, parsed.number.slice(1), parsed.formatNational().replace(/[^0-9]/g, ''), text] : [text];
  return { login: parsed?.number ?? text, candidates: [...new Set(forms)].filter((form) => REGISTERED.test(form)) };
};

/** A mobile number of the currency's country as people write it there and from abroad: the field's hint. */
export const phoneExample = (currency: Currency): { national: string; international: string } => {
  const example = getExampleNumber(COUNTRY_OF_CURRENCY[currency] as CountryCode, mobileExamples);
  return { national: example?.formatNational() ?? '', international: example?.formatInternational() ?? '' };
};

/**
 * The sign-in limiter's logins of a registered phone: the number as each currency's country reads it
 * (a national spelling reads differently per country), so that a reset lifts every lock on it.
 */
export const customerSignInLogins = (phone: string): string[] => [...new Set(CURRENCIES.map((currency) => `customer:${typedPhone(phone, currency).login}`))];
