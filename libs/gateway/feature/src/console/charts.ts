import type { BalancePoint } from '@pay/contracts';
import { formatSignedMoney as formatMoney, localeOf, ZONE_OF_CURRENCY, type Language, type TimeZone } from '@pay/hosted-ui';
import type { Currency } from '@pay/kernel';

/**
 * The console's charts, SVG drawn on the server: a balance over a period (a step line: a balance
 * holds until the next movement) and amounts by month (bars). Pure: no I/O, no clock; the page embeds
 * the markup as it is. Times are ticked at the local midnights or month starts of the currency's zone,
 * amounts are formatted as the pages format money. Right to left, time runs from right to left and the
 * amount axis stands on the right. The functions place everything; the templates draw the SVG, every
 * text escaped there; a point's or a bar's `<title>` is its tooltip (no script needed).
 */

export const CHART_WIDTH = 720;
export const CHART_HEIGHT = 300;
const MARGIN = { top: 16, bottom: 40, axis: 112, far: 16 };
/** Circles (each with its tooltip) drawn on the line at most; past it the line alone. */
export const CHART_MARKERS_MAX = 120;
const TIME_TICKS_MAX = 7;
const AMOUNT_TICKS = 5;

export interface ChartText {
  /** Ids of the `<title>` and `<desc>` (aria-labelledby): unique in the page. */
  id: string;
  title: string;
  description: string;
}

export interface BalanceChartInput extends ChartText {
  from: string;
  to: string;
  /** The balance at `from`, then after each movement (oldest first). */
  opening: number;
  points: readonly BalancePoint[];
  currency: Currency;
  language: Language;
  rtl: boolean;
}

export interface Bar {
  label: string;
  amount: number;
}

export interface BarChartInput extends ChartText {
  bars: readonly Bar[];
  currency: Currency;
  language: Language;
  rtl: boolean;
}

/** `1, 2, 5 × 10^k` steps covering [min, max] in about `count` ticks; integers (minor units). */
export function amountTicks(min: number, max: number, count = AMOUNT_TICKS): number[] {
  let [low, high] = [Math.min(min, 0), Math.max(max, 0)];
  if (low === high) high = low + 1;
  const raw = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power);
  low = Math.floor(low / step) * step;
  high = Math.ceil(high / step) * step;
  const ticks: number[] = [];
  for (let value = low; value <= high; value += step) ticks.push(value);
  return ticks;
}

/** The zone's offset from UTC at `ms`, in ms (positive east of Greenwich). */
export function zoneOffsetMs(ms: number, zone: TimeZone): number {
  const parts = partsIn(ms, zone);
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) - Math.floor(ms / 1000) * 1000;
}

const partFormats = new Map<string, Intl.DateTimeFormat>();
const partsIn = (ms: number, zone: TimeZone) => {
  let format = partFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US-u-nu-latn', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    partFormats.set(zone, format);
  }
  // One formatting for the six fields: formatToParts is most of a chart's cost.
  const parts = format.formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
};

/** The instant of local `y-m-d h:00` in `zone` (a date past a month's end rolls over, as Date.UTC does). */
export function localInstant(year: number, month: number, day: number, hour: number, zone: TimeZone): number {
  const guess = Date.UTC(year, month - 1, day, hour);
  const first = guess - zoneOffsetMs(guess, zone);
  // The offset at the instant itself (a change of offset between the guess and it).
  return guess - zoneOffsetMs(first, zone);
}

export type TickUnit = 'hour' | 'day' | 'month';
export interface TimeTick {
  ms: number;
  unit: TickUnit;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Ticks inside [from, to] at local times of `zone`: whole hours for a span up to two days, local
 * midnights up to about four months, else month starts; at most `max`.
 */
export function timeTicks(fromMs: number, toMs: number, zone: TimeZone, max = TIME_TICKS_MAX): TimeTick[] {
  const span = toMs - fromMs;
  if (span <= 0) return [];
  const start = partsIn(fromMs, zone);
  const ticks: TimeTick[] = [];
  if (span <= 2 * DAY) {
    const step = [1, 2, 3, 6, 12, 24].find((h) => span / (h * HOUR) <= max) ?? 24;
    for (let i = 0; ; i++) {
      const ms = localInstant(start.year, start.month, start.day, i, zone);
      if (ms > toMs) break;
      if (ms >= fromMs && partsIn(ms, zone).hour % step === 0) ticks.push({ ms, unit: 'hour' });
    }
  } else if (span <= 120 * DAY) {
    const step = [1, 2, 7, 14, 28].find((d) => span / (d * DAY) <= max) ?? 28;
    for (let i = 0; ; i++) {
      const ms = localInstant(start.year, start.month, start.day + i, 0, zone);
      if (ms > toMs) break;
      if (ms >= fromMs && i % step === 0) ticks.push({ ms, unit: 'day' });
    }
  } else {
    const months = (to: { year: number; month: number }) => (to.year - start.year) * 12 + (to.month - start.month);
    const count = months(partsIn(toMs, zone)) + 1;
    const step = [1, 2, 3, 6, 12].find((m) => count / m <= max) ?? Math.ceil(count / max);
    for (let i = 0; i <= count; i++) {
      const ms = localInstant(start.year, start.month + i, 1, 0, zone);
      if (ms > toMs) break;
      if (ms >= fromMs && (start.month - 1 + i) % step === 0) ticks.push({ ms, unit: 'month' });
    }
  }
  return ticks.slice(0, max);
}

const labelFormats = new Map<string, Intl.DateTimeFormat>();
/** A tick's label in the language, in the zone: `14:00`, `3 nov.`, `nov. 2026`. */
export function tickLabel(tick: TimeTick, currency: Currency, language: Language): string {
  const zone = ZONE_OF_CURRENCY[currency];
  const key = `${language} ${currency} ${tick.unit}`;
  let format = labelFormats.get(key);
  if (!format) {
    const options: Intl.DateTimeFormatOptions =
      tick.unit === 'hour' ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } : tick.unit === 'day' ? { day: 'numeric', month: 'short' } : { month: 'short', year: 'numeric' };
    format = new Intl.DateTimeFormat(localeOf(language, currency), { ...options, timeZone: zone });
    labelFormats.set(key, format);
  }
  return format.format(new Date(tick.ms));
}

const instantFormats = new Map<string, Intl.DateTimeFormat>();
const instantLabel = (ms: number, currency: Currency, language: Language): string => {
  const key = `${language} ${currency}`;
  let format = instantFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(localeOf(language, currency), { dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23', timeZone: ZONE_OF_CURRENCY[currency] });
    instantFormats.set(key, format);
  }
  return format.format(new Date(ms));
};

const round = (n: number): string => (Math.round(n * 10) / 10).toString();

/** The plot's box and the side of the amount axis. */
const frame = (rtl: boolean) => {
  const left = rtl ? MARGIN.far : MARGIN.axis;
  const right = CHART_WIDTH - (rtl ? MARGIN.axis : MARGIN.far);
  return { left, right, top: MARGIN.top, bottom: CHART_HEIGHT - MARGIN.bottom, axisX: rtl ? right + 8 : left - 8, anchor: rtl ? 'start' : 'end' };
};

/** What a chart's template draws (views/console/console-account.eta, console-finance-fees.eta): every number placed, every text ready to be escaped. */
export interface ChartFrame {
  id: string;
  title: string;
  description: string;
  width: number;
  height: number;
  /** Horizontal lines at each amount tick, with their labels on the axis' side. */
  grid: { y: string; zero: boolean; label: string; labelX: number; anchor: 'start' | 'end' }[];
  plot: { left: number; right: number; bottom: number };
}

export interface LineChartModel extends ChartFrame {
  timeTicks: { x: string; label: string }[];
  /** The step line's `d`: numbers and commands only. */
  path: string;
  markers: { cx: string; cy: string; tooltip: string }[];
}

export interface BarChartModel extends ChartFrame {
  bars: { x: string; y: string; width: string; height: string; tooltip: string; label: string | null; labelX: string }[];
}

const frameOf = (text: ChartText, ticks: number[], y: (v: number) => number, box: ReturnType<typeof frame>, currency: Currency, language: Language): ChartFrame => ({
  id: text.id,
  title: text.title,
  description: text.description,
  width: CHART_WIDTH,
  height: CHART_HEIGHT,
  grid: ticks.map((value) => ({ y: round(y(value)), zero: value === 0, label: formatMoney(value, currency, language), labelX: box.axisX, anchor: box.anchor as 'start' | 'end' })),
  plot: { left: box.left, right: box.right, bottom: box.bottom },
});

/** The balance of one account from `from` to `to`, as a step line. */
export function balanceChart(input: BalanceChartInput): LineChartModel {
  const box = frame(input.rtl);
  const [fromMs, toMs] = [Date.parse(input.from), Date.parse(input.to)];
  const points = input.points.map((p) => ({ ms: Math.min(Math.max(Date.parse(p.at), fromMs), toMs), balance: p.balance }));
  const balances = [input.opening, ...points.map((p) => p.balance)];
  const ticks = amountTicks(Math.min(...balances), Math.max(...balances));
  const [low, high] = [ticks[0]!, ticks[ticks.length - 1]!];
  const x = (ms: number) => {
    const share = toMs > fromMs ? (ms - fromMs) / (toMs - fromMs) : 0;
    return input.rtl ? box.right - share * (box.right - box.left) : box.left + share * (box.right - box.left);
  };
  const y = (value: number) => box.bottom - ((value - low) / (high - low)) * (box.bottom - box.top);

  let path = `M${round(x(fromMs))} ${round(y(input.opening))}`;
  for (const p of points) path += ` H${round(x(p.ms))} V${round(y(p.balance))}`;
  path += ` H${round(x(toMs))}`;
  return {
    ...frameOf(input, ticks, y, box, input.currency, input.language),
    timeTicks: timeTicks(fromMs, toMs, ZONE_OF_CURRENCY[input.currency]).map((tick) => ({ x: round(x(tick.ms)), label: tickLabel(tick, input.currency, input.language) })),
    path,
    markers:
      points.length <= CHART_MARKERS_MAX
        ? points.map((p) => ({ cx: round(x(p.ms)), cy: round(y(p.balance)), tooltip: `${instantLabel(p.ms, input.currency, input.language)}: ${formatMoney(p.balance, input.currency, input.language)}` }))
        : [],
  };
}

/** Amounts side by side (fee revenue by month), in the order given; right to left, the first on the right. */
export function barChart(input: BarChartInput): BarChartModel {
  const box = frame(input.rtl);
  const ticks = amountTicks(Math.min(0, ...input.bars.map((b) => b.amount)), Math.max(0, ...input.bars.map((b) => b.amount)));
  const [low, high] = [ticks[0]!, ticks[ticks.length - 1]!];
  const y = (value: number) => box.bottom - ((value - low) / (high - low)) * (box.bottom - box.top);
  const slot = input.bars.length > 0 ? (box.right - box.left) / input.bars.length : 0;
  const width = Math.max(2, slot * 0.6);
  // Labels thinned out so that they never overlap (about 70 units each).
  const every = Math.max(1, Math.ceil(70 / Math.max(slot, 1)));
  return {
    ...frameOf(input, ticks, y, box, input.currency, input.language),
    bars: input.bars.map((bar, i) => {
      const centre = input.rtl ? box.right - slot * (i + 0.5) : box.left + slot * (i + 0.5);
      const [top, bottom] = [y(Math.max(bar.amount, 0)), y(Math.min(bar.amount, 0))];
      return {
        x: round(centre - width / 2),
        y: round(top),
        width: round(width),
        height: round(Math.max(bottom - top, 0)),
        tooltip: `${bar.label}: ${formatMoney(bar.amount, input.currency, input.language)}`,
        label: i % every === 0 ? bar.label : null,
        labelX: round(centre),
      };
    }),
  };
}
