/**
 * Failpoints for crash tests (as in FreeBSD/TiKV fail points): when the FAILPOINTS environment variable
 * names a point, reaching it kills the process at once with SIGKILL, as a power cut would.
 * Unset in every normal run; costs one Set lookup.
 */
const enabled = new Set((process.env['FAILPOINTS'] ?? '').split(',').map((s) => s.trim()).filter(Boolean));

export const failpoint = (name: string): void => {
  if (enabled.has(name)) {
    process.stderr.write(`failpoint ${name}: killing process ${process.pid}\n`);
    process.kill(process.pid, 'SIGKILL');
  }
};
