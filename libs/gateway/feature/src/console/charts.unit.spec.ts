import { formatMoney } from '@pay/hosted-ui';
import { amountTicks, balanceChart, barChart, CHART_WIDTH, localInstant, tickLabel, timeTicks, zoneOffsetMs } from './charts';

const texts = (svg: string, className: string): string[] => [...svg.matchAll(new RegExp(`<text class="${className}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1]!);
const attribute = (svg: string, element: string, name: string): number[] => [...svg.matchAll(new RegExp(`<${element}[^>]* ${name}="([-0-9.]+)"`, 'g'))].map((m) => Number(m[1]));

describe('amountTicks', () => {
  it('covers the range and zero with round steps', () => {
    expect(amountTicks(0, 1_000_000)).toEqual([0, 200_000, 400_000, 600_000, 800_000, 1_000_000]);
    expect(amountTicks(-150, 420)).toEqual([-200, 0, 200, 400, 600]);
  });
  it('has a range when every value is the same', () => {
    expect(amountTicks(0, 0)).toEqual([0, 1]);
    expect(amountTicks(5000, 5000)[0]).toBe(0);
  });
});

describe('local time', () => {
  it('knows each zone’s offset, Morocco’s Ramadan change included', () => {
    expect(zoneOffsetMs(Date.parse('2026-06-01T12:00:00Z'), 'Africa/Algiers')).toBe(3_600_000);
    expect(zoneOffsetMs(Date.parse('2026-06-01T12:00:00Z'), 'Africa/Dakar')).toBe(0);
    // Morocco: UTC+1, UTC during Ramadan (February-March 2026).
    expect(zoneOffsetMs(Date.parse('2026-01-10T12:00:00Z'), 'Africa/Casablanca')).toBe(3_600_000);
    expect(zoneOffsetMs(Date.parse('2026-03-01T12:00:00Z'), 'Africa/Casablanca')).toBe(0);
  });
  it('finds a local midnight', () => {
    expect(new Date(localInstant(2026, 11, 3, 0, 'Africa/Algiers')).toISOString()).toBe('2026-11-02T23:00:00.000Z');
    expect(new Date(localInstant(2026, 12, 32, 0, 'Africa/Tunis')).toISOString()).toBe('2026-12-31T23:00:00.000Z');
  });
  it('ticks a month at local midnights of the zone, at most seven', () => {
    const ticks = timeTicks(Date.parse('2026-11-01T10:00:00Z'), Date.parse('2026-11-30T10:00:00Z'), 'Africa/Algiers');
    expect(ticks.length).toBeGreaterThan(2);
    expect(ticks.length).toBeLessThanOrEqual(7);
    for (const tick of ticks) {
      expect(tick.unit).toBe('day');
      expect(new Date(tick.ms).toISOString()).toMatch(/T23:00:00\.000Z$/);
    }
  });
  it('ticks a day by hours and a year by month starts', () => {
    const hours = timeTicks(Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-02T00:00:00Z'), 'Africa/Dakar');
    expect(hours.map((t) => new Date(t.ms).toISOString().slice(11, 16))).toEqual(['00:00', '06:00', '12:00', '18:00', '00:00']);
    const months = timeTicks(Date.parse('2025-12-15T00:00:00Z'), Date.parse('2026-11-15T00:00:00Z'), 'Africa/Algiers');
    expect(months.every((t) => t.unit === 'month' && new Date(t.ms + 3_600_000).getUTCDate() === 1)).toBe(true);
  });
  it('labels ticks in the language', () => {
    const tick = { ms: Date.parse('2026-11-02T23:00:00Z'), unit: 'day' as const };
    expect(tickLabel(tick, 'DZD', 'fr')).toBe('3 nov.');
    expect(tickLabel(tick, 'DZD', 'en')).toMatch(/3/);
    expect(tickLabel({ ms: Date.parse('2026-11-02T13:00:00Z'), unit: 'hour' }, 'DZD', 'fr')).toBe('14:00');
  });
});

describe('balanceChart', () => {
  const input = {
    id: 'balance',
    title: 'Solde <du compte>',
    description: 'De A à B',
    from: '2026-11-01T00:00:00Z',
    to: '2026-11-11T00:00:00Z',
    opening: 0,
    points: [
      { at: '2026-11-03T10:00:00Z', balance: 500_000 },
      { at: '2026-11-06T10:00:00Z', balance: 200_000 },
    ],
    currency: 'DZD' as const,
    language: 'fr' as const,
    rtl: false,
  };

  it('draws a step line from the opening balance to the end of the period, with a tooltip per movement', () => {
    const svg = balanceChart(input);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('aria-labelledby="balance-title balance-desc"');
    expect(svg).toContain('<title id="balance-title">Solde &lt;du compte&gt;</title>');
    expect(svg).not.toContain('<du compte>');
    expect(svg.match(/<circle /g)).toHaveLength(2);
    expect(svg).toContain(`: ${formatMoney(500_000, 'DZD', 'fr')}</title></circle>`);
    expect(texts(svg, 'axis')).toEqual(expect.arrayContaining([formatMoney(0, 'DZD', 'fr'), formatMoney(500_000, 'DZD', 'fr')]));
    const d = /<path class="line" d="([^"]+)"/.exec(svg)![1]!;
    expect(d.startsWith('M112 ')).toBe(true);
    expect(d.endsWith(`H${CHART_WIDTH - 16}`)).toBe(true);
  });

  it('right to left: time runs from the right, the amounts stand on the right', () => {
    const ltr = balanceChart(input);
    const rtl = balanceChart({ ...input, rtl: true, language: 'ar' });
    const [first, second] = attribute(rtl, 'circle', 'cx');
    expect(first!).toBeGreaterThan(second!);
    const [ltrFirst, ltrSecond] = attribute(ltr, 'circle', 'cx');
    expect(ltrFirst!).toBeLessThan(ltrSecond!);
    expect(attribute(rtl, 'text class="axis"', 'x')[0]!).toBeGreaterThan(CHART_WIDTH - 112);
    expect(rtl).toContain('text-anchor="start"');
    expect(texts(rtl, 'axis')).toContain(formatMoney(500_000, 'DZD', 'ar'));
  });

  it('a flat balance still has an axis; past the bound, no markers', () => {
    const flat = balanceChart({ ...input, opening: 0, points: [] });
    expect(texts(flat, 'axis').length).toBeGreaterThan(1);
    const many = balanceChart({ ...input, points: Array.from({ length: 500 }, (_, i) => ({ at: new Date(Date.parse(input.from) + i * 60_000).toISOString(), balance: i })) });
    expect(many).not.toContain('<circle');
  });
});

describe('barChart', () => {
  it('one bar per month with its tooltip, heights in proportion', () => {
    const svg = barChart({ id: 'fees', title: 'Frais', description: 'Par mois', currency: 'XOF', language: 'en', rtl: false, bars: [{ label: 'Oct 2026', amount: 1000 }, { label: 'Nov 2026', amount: 2000 }, { label: '<b>', amount: 0 }] });
    const heights = attribute(svg, 'rect', 'height');
    expect(heights).toHaveLength(3);
    expect(heights[1]).toBeCloseTo(heights[0]! * 2, 0);
    expect(heights[2]).toBe(0);
    expect(svg).toContain(`<title>Nov 2026: ${formatMoney(2000, 'XOF', 'en')}</title>`);
    expect(svg).toContain('&lt;b&gt;');
    const rtl = barChart({ id: 'fees', title: 'Frais', description: 'Par mois', currency: 'XOF', language: 'ar', rtl: true, bars: [{ label: 'a', amount: 1 }, { label: 'b', amount: 1 }] });
    const [a, b] = attribute(rtl, 'rect', 'x');
    expect(a!).toBeGreaterThan(b!);
  });
});
