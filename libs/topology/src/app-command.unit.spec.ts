import { join } from 'node:path';
import { appCommand } from './app-process';

const ROOT = join(__dirname, '..', '..', '..');

describe("an app's command line", () => {
  it('runs the sources through the workspace loader by default', () => {
    expect(appCommand('apps/ledger/src/main.ts', false)).toEqual([join(ROOT, 'tools', 'run.js'), join(ROOT, 'apps/ledger/src/main.ts')]);
  });

  it('runs the build under dist/ when asked (TOPOLOGY_APPS=built), and says to build first when it is missing', () => {
    expect(() => appCommand('apps/nowhere/src/main.ts', true)).toThrow(`${join(ROOT, 'dist/apps/nowhere/src/main.js')} does not exist: run \`npm run build\` first`);
  });
});
