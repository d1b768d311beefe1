import { runCli } from './cli';

/** `npx payments …` (tools/payments.js): the integrator's command line for the sandbox. */
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
void runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  cwd: process.cwd(),
  signal: stop.signal,
}).then((code) => {
  process.exitCode = code;
});
