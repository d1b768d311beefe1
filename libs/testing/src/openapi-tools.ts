import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where the API-description tools are installed (@redocly/cli, @stoplight/spectral-cli,
 * openapi-typescript, openapi-fetch): the workspace's node_modules, or OPENAPI_TOOLS_NODE_MODULES.
 */
export const TOOLS_NODE_MODULES = resolve(process.env['OPENAPI_TOOLS_NODE_MODULES'] ?? join(__dirname, '..', '..', '..', 'node_modules'));

/** A tool's executable; a missing one fails the test that needs it, naming the package to install. */
export function toolBin(name: string, pkg: string): string {
  const bin = join(TOOLS_NODE_MODULES, '.bin', name);
  if (!existsSync(bin)) throw new Error(`${name} is not installed: npm install -D ${pkg} (looked in ${TOOLS_NODE_MODULES})`);
  return bin;
}

/** A library the generated client needs at run time (openapi-fetch): missing, the test names it. */
export function requirePackage(pkg: string): void {
  if (!existsSync(join(TOOLS_NODE_MODULES, pkg, 'package.json'))) throw new Error(`${pkg} is not installed: npm install -D ${pkg} (looked in ${TOOLS_NODE_MODULES})`);
}
