export interface Row {
  figure: string;
  value: string;
  target: string;
  /** undefined: reported, no target. */
  pass?: boolean;
}

export const fmt = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** A plain-text table: one line per figure, its target and PASS/MISS. */
export function table(rows: readonly Row[]): string {
  const cells = rows.map((r) => [r.figure, r.value, r.target, r.pass === undefined ? '' : r.pass ? 'PASS' : 'MISS']);
  const header = ['figure', 'value', 'target', 'result'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((cell, i) => (i === 1 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(header), rule, ...cells.map(line)].join('\n');
}
