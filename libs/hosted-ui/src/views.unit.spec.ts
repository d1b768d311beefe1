import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DEFAULT_BRAND } from './brand';
import { pageContext, stylesheet, Views } from './views';

const ROOT = join(__dirname, '..', '..', '..');

/** Every template of the repository: each lib keeps its own under `views/`. */
const templates = (): string[] => {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.eta')) found.push(path);
    }
  };
  walk(join(ROOT, 'libs'));
  return found;
};

/** Raw (unescaped) output is for the layout's body and our own partials only. */
const ALLOWED_RAW = [/^<%~\s*it\.body\s*%>$/, /^<%~\s*include\('@[a-z-]+'(,\s*it)?\)\s*%>$/];

describe('templates', () => {
  it('escape by default: no raw output but the layout body and partials', () => {
    const files = templates();
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const file of files) {
      for (const raw of readFileSync(file, 'utf8').match(/<%~[^%]*%>/g) ?? []) {
        expect({ file: relative(ROOT, file), raw, allowed: ALLOWED_RAW.some((r) => r.test(raw)) }).toEqual({ file: relative(ROOT, file), raw, allowed: true });
      }
    }
  });

  it('render values as text, in the language and direction asked', () => {
    const dir = mkdtempSync(join(tmpdir(), 'views-'));
    writeFileSync(join(dir, 'probe.eta'), `<% layout('@layout') %><p title="<%= it.name %>"><%= it.name %> <%= it.money(1250000, 'DZD') %></p>`);
    const views = new Views<{ probe: { name: string } }>(dir);
    const html = views.render('probe', { name: '"><script>alert(1)</script>' }, pageContext({ language: 'ar', brandName: 'Pay <b>', title: ['payment.title', { merchant: '<i>' }] }));
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain('<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">&quot;&gt;&lt;script&gt;');
    expect(html).toContain('<title>الدفع لـ \u2068&lt;i&gt;\u2069 · Pay &lt;b&gt;</title>');
    expect(html).not.toMatch(/<script>|<b>|<i>/);
    expect(html).toContain('href="?lang=fr"');
  });

  it('the stylesheet carries the brand colours and no physical left/right (it mirrors in Arabic)', () => {
    const css = stylesheet({ ...DEFAULT_BRAND, color: '#ffcc00' });
    expect(css).toMatch(/^:root\{--brand:#ffcc00;--on-brand:#000000;--accent:#1a1a1a\}/);
    expect(css).not.toMatch(/\b(margin|padding|border)-(left|right)\b|\b(left|right)\s*:|text-align\s*:\s*(left|right)|float\s*:/);
    expect(css).toContain('@media print');
  });
});
