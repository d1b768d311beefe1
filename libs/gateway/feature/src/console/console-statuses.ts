import { CATALOGUES, type MessageKey, type Translate } from '@pay/hosted-ui';

const known = (key: string): key is MessageKey => Object.hasOwn(CATALOGUES.fr, key);

/**
 * The words for an object's status (`object`: the API's object name, `payment`, `delivery`, …): the
 * console's own when it has some, else the hosted pages' (shared with the payer's pages), else null.
 */
export const statusKey = (object: string, status: string): MessageKey | null => {
  for (const key of [`console.status.${object}.${status}`, `status.${object}.${status}`]) if (known(key)) return key;
  return null;
};

/** The words for an event type (`payment.succeeded`): the status it moved its object to, or the event's own. */
export const eventKey = (type: string): MessageKey | null => {
  const own = `console.event.${type}`;
  if (known(own)) return own;
  const dot = type.indexOf('.');
  return dot > 0 ? statusKey(type.slice(0, dot), type.slice(dot + 1)) : null;
};

/** A status in words; the API's value when the catalogues have none (a status added since). */
export const statusText = (t: Translate, object: string, status: string): string => {
  const key = statusKey(object, status);
  return key ? t(key) : status;
};

export const eventText = (t: Translate, type: string): string => {
  const key = eventKey(type);
  return key ? t(key) : type;
};

/** A journal entry's kind (`payment`, `payout_reversal`, …) in words; the API's value when the catalogues have none. */
export const entryKindText = (t: Translate, kind: string): string => {
  const key = `console.entry_kind.${kind}`;
  return known(key) ? t(key) : kind;
};
