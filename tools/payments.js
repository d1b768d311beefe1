#!/usr/bin/env node
// `npx payments <command>` in this repository: the CLI of libs/cli, run from its TypeScript sources.
require('./register');
require('../libs/cli/src/main.ts');
