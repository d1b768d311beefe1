import { basename, dirname } from 'node:path';
import { KAFKAJS_VERSION_FIXED } from './kafkajs-idle-timer-fix';

/**
 * kafkajs 2.2.4 builds every request to the broker through its protocol's version table
 * (`protocol/requests/<api>/index.js`), and each entry of that table calls `require('./v<n>/request')`
 * and `require('./v<n>/response')` when it is called: twice per fetch, produce, heartbeat and offset
 * commit. The modules are cached, but each call still goes through Node's module loader (path
 * resolution, the cache lookup, the parent's children list), which a CPU profile of the payments app
 * under load put at 2.5 to 3 % of its busy time.
 *
 * Node's `require` inside a module calls that module's `require` method, so giving each of those
 * index modules a `require` that remembers what it returned keeps the same module objects and skips
 * the loader after the first call.
 */

interface LoadedModule {
  require(id: string): unknown;
}

let applied = false;

/**
 * Memoizes the `require` of kafkajs' request version tables in the kafkajs this process loaded, once.
 * Does nothing for a kafkajs other than KAFKAJS_VERSION_FIXED, nor where modules are not Node's own
 * (a test runner's module registry).
 */
export function memoizeKafkajsRequestRequires(): void {
  if (applied) return;
  applied = true;
  // Internal modules of kafkajs, not typed; the version pin is what makes reaching them safe.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== KAFKAJS_VERSION_FIXED) return;
  const requestsIndex = require.resolve('kafkajs/src/protocol/requests');
  // Loading the index loads every request's version table.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(requestsIndex);
  const requestsDir = dirname(requestsIndex);
  for (const [path, loaded] of Object.entries(require.cache ?? {})) {
    if (!loaded || basename(path) !== 'index.js' || dirname(dirname(path)) !== requestsDir) continue;
    memoizeRequire(loaded as unknown as LoadedModule);
  }
}

function memoizeRequire(loaded: LoadedModule): void {
  const load = loaded.require.bind(loaded);
  const exportsById = new Map<string, unknown>();
  loaded.require = (id: string): unknown => {
    if (exportsById.has(id)) return exportsById.get(id);
    const exports = load(id);
    exportsById.set(id, exports);
    return exports;
  };
}
