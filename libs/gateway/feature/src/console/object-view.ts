import { CATALOGUES, type MessageKey } from '@pay/hosted-ui';
import type { Currency } from '@pay/kernel';
import type { ConsoleObject } from './console-objects';
import { accountPath, kindOfId, objectPath } from './console-paths';
import type { ConsoleViews, Fact } from './console-views';

export type { Fact };


const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** Tested on a field's own name, the last part of a nested one (`deposit.amount_expected`). */
const MONEY_FIELD = /(^|_)(amount|fee|balance|total)(_|$)/;
const isMoneyField = (name: string): boolean => MONEY_FIELD.test(name.slice(name.lastIndexOf('.') + 1));

/** The field's label in the console's catalogues (`console.label.<name>`), or null: then its API name is shown. */
const labelOf = (name: string): MessageKey | null => {
  const key = `console.label.${name}`;
  return Object.hasOwn(CATALOGUES.fr, key) ? (key as MessageKey) : null;
};

/** A value as the page shows it: amounts in the object's currency, times in local time, ids as links to their pages. */
const factOf = (name: string, value: unknown, currency: Currency | null, names: Record<string, string>): Fact => {
  const base = { name, labelKey: labelOf(name), text: '', amount: 0, href: null, note: null };
  if (typeof value === 'number' && currency && isMoneyField(name)) return { ...base, kind: 'money', amount: value };
  if (typeof value === 'string' && TIME.test(value)) return { ...base, kind: 'time', text: value };
  if (typeof value === 'string' && kindOfId(value) && name !== 'id') return { ...base, kind: 'link', text: value, href: objectPath(value), note: names[value] ?? null };
  if (value === null || value === undefined) return { ...base, kind: 'text', text: '—' };
  if (name === 'status' && typeof value === 'string') return { ...base, kind: 'status', text: value };
  if (typeof value === 'boolean') return { ...base, kind: 'yesNo', text: value ? 'yes' : 'no' };
  if (typeof value === 'object') return { ...base, kind: 'text', text: Array.isArray(value) && value.every((v) => typeof v !== 'object') ? value.join(', ') : JSON.stringify(value) };
  return { ...base, kind: 'text', text: String(value) };
};

/** The fields of a resource, nested objects one level down (`deposit.due_at`); `object` and `id` are the page's heading. */
export const factsOf = (resource: Record<string, unknown>, currency: Currency | null, names: Record<string, string>): Fact[] =>
  Object.entries(resource)
    .filter(([name]) => name !== 'object')
    .flatMap(([name, value]) =>
      value !== null && typeof value === 'object' && !Array.isArray(value) && name !== 'data'
        ? Object.entries(value as Record<string, unknown>).map(([child, v]) => factOf(`${name}.${child}`, v, currency, names))
        : name === 'data' && value && typeof value === 'object' && 'object' in value
          ? [factOf('data.object.id', ((value as { object: { id?: unknown } }).object ?? {}).id, currency, names)]
          : [factOf(name, value, currency, names)],
    );

/** The object page's model. */
export const objectModel = (object: ConsoleObject, admin: boolean, notice: ConsoleViews['console-object']['notice']): ConsoleViews['console-object'] => ({
  id: object.id,
  kindKey: object.kindKey,
  object: typeof object.resource['object'] === 'string' ? object.resource['object'] : '',
  status: object.status,
  integratorId: object.integratorId,
  currency: object.currency,
  facts: factsOf(object.resource, object.currency, object.names),
  events: object.events.map(({ event, deliveries }) => ({
    id: event.id,
    type: event.type,
    at: event.created_at,
    redeliverHref: admin && object.integratorId ? `${objectPath(object.id)}/redeliver?event=${encodeURIComponent(event.id)}` : null,
    deliveries: deliveries.map((d) => ({
      id: d.id,
      endpoint: d.endpoint,
      status: d.status,
      nextAttemptAt: d.next_attempt_at,
      attempts: d.attempt_history.map((a) => ({ at: a.attempted_at, statusCode: a.status_code, latencyMs: a.latency_ms, error: a.error })),
    })),
  })),
  entries: object.entries.map((e) => ({
    id: e.id,
    kind: e.kind,
    at: e.created_at,
    postings: e.postings.map((p) => ({ account: p.account, href: accountPath(p.account), direction: p.direction, amount: p.amount, currency: p.currency })),
  })),
  audit: object.audit,
  notice,
});
