import { dateParam, dayStart, displayDate, monthParam } from './console-dates';

describe("the console's dates: typed day first whatever the browser's locale, written as they are typed", () => {
  it('a date is typed DD/MM/YYYY (Arabic-Indic digits too) or given YYYY-MM-DD by a link; both read as YYYY-MM-DD', () => {
    expect(dateParam({ from: '03/11/2026' }, 'from')).toBe('2026-11-03');
    expect(dateParam({ from: ' 3/1/2026 ' }, 'from')).toBe('2026-01-03');
    expect(dateParam({ from: '٠٣/١١/٢٠٢٦' }, 'from')).toBe('2026-11-03');
    expect(dateParam({ from: '2026-11-03' }, 'from')).toBe('2026-11-03');
    expect(dateParam({}, 'from')).toBeUndefined();
    expect(dateParam({ from: '' }, 'from')).toBeUndefined();
  });

  it('an impossible or malformed date is a 400 naming the format', () => {
    for (const typed of ['31/02/2026', '11/03', 'nope', '2026/11/03', '13/13/2026']) {
      expect(() => dayStart(dateParam({ from: typed }, 'from')!, 'DZD', 'from')).toThrow(/from must be a date, DD\/MM\/YYYY/);
    }
  });

  it('a month is typed MM/YYYY or given YYYY-MM', () => {
    expect(monthParam({ end: '11/2026' }, 'end')).toBe('2026-11');
    expect(monthParam({ end: '1/2026' }, 'end')).toBe('2026-01');
    expect(monthParam({ end: '2026-11' }, 'end')).toBe('2026-11');
  });

  it('a date is written DD/MM/YYYY in every language', () => {
    expect(displayDate('2026-11-03')).toBe('03/11/2026');
    expect(displayDate('')).toBe('');
  });
});
