#!/usr/bin/env node
// `node tools/run.js <file.ts> [args]`: run a TypeScript entry point with the workspace loader.
require('./register');
const { resolve } = require('node:path');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node tools/run.js <entry.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], resolve(entry), ...args];
require(resolve(entry));
