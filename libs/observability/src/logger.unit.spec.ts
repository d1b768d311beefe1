import { noteIntegrator, runOutsideLogContext, runWithLogContext } from './log-context';
import { createProcessLogger, type LogLevelName } from './logger';
import { scrubSecrets } from './redaction';

const capture = (level: LogLevelName = 'info') => {
  const lines: string[] = [];
  const logger = createProcessLogger({ app: 'test', level, destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
};

describe('process logger', () => {
  it('writes one JSON object per line: time, level name, app, msg and the line fields', () => {
    const { logger, lines, parsed } = capture();
    logger.info({ route: '/v1/payments', status: 201 }, 'request completed');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    expect(parsed()[0]).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'info', app: 'test', msg: 'request completed', route: '/v1/payments', status: 201 });
  });

  it('writes nothing below its level', () => {
    const { logger, lines } = capture('warn');
    logger.info('not written');
    logger.debug('not written either');
    logger.warn('written');
    expect(lines).toHaveLength(1);
  });

  it('names the work in hand: request_id, correlation_id, and the integrator once noted; nothing outside a context', () => {
    const { logger, parsed } = capture();
    runWithLogContext({ requestId: 'req_1', correlationId: 'req_1' }, () => {
      logger.info('before authentication');
      noteIntegrator('int_1');
      logger.info('after authentication');
      runOutsideLogContext(() => logger.info('background work it woke'));
    });
    logger.info('no work in hand');
    expect(parsed().map(({ request_id, correlation_id, integrator_id }) => ({ request_id, correlation_id, integrator_id }))).toEqual([
      { request_id: 'req_1', correlation_id: 'req_1', integrator_id: undefined },
      { request_id: 'req_1', correlation_id: 'req_1', integrator_id: 'int_1' },
      { request_id: undefined, correlation_id: undefined, integrator_id: undefined },
      { request_id: undefined, correlation_id: undefined, integrator_id: undefined },
    ]);
  });

  it('masks fields named like secrets, at the top and one level down, and request headers', () => {
    const { logger, lines } = capture();
    logger.info({ pin: '480213', body: { password: 'hunter2-pw', secret: 'whsec_abc' }, req: { headers: { authorization: 'Bearer sk_live', cookie: 'pay_session=s3cr3t' } } }, 'fields');
    expect(lines[0]).not.toMatch(/480213|hunter2-pw|whsec_abc|sk_live|s3cr3t/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ pin: '[redacted]', body: { password: '[redacted]', secret: '[redacted]' }, req: { headers: { authorization: '[redacted]', cookie: '[redacted]' } } });
  });

  it("masks without changing the logged object, leaves other fields and levels as they are, and masks an error's own secret fields", () => {
    const { logger, parsed } = capture();
    const fields = { token: 'tok_1', count: 3, nested: { pin: '1234', keep: 'kept' } };
    logger.info(fields, 'fields');
    logger.error({ err: Object.assign(new Error('failed'), { password: 'p4ss' }) }, 'driver error');
    expect(fields).toEqual({ token: 'tok_1', count: 3, nested: { pin: '1234', keep: 'kept' } });
    const [line, error] = parsed();
    expect(line).toMatchObject({ token: '[redacted]', count: 3, nested: { pin: '[redacted]', keep: 'kept' } });
    expect(error).toMatchObject({ err: { message: 'failed', password: '[redacted]', type: 'Error' } });
  });

  it("masks the fields of any object it is given, not only object literals: a request's headers, a class's secret", () => {
    const { logger, lines } = capture();
    class Credentials {
      constructor(readonly token: string) {}
    }
    const request = Object.assign(Object.create({ kind: 'request' }) as object, { method: 'POST', headers: { authorization: 'Bearer sk_in_a_request' } });
    const frozen = Object.freeze({ pin: '9999', reason: 'frozen' });
    logger.warn({ req: request, credentials: new Credentials('tok_in_a_class'), frozen, body: Buffer.from('not walked') }, 'objects');
    expect(lines[0]).not.toMatch(/sk_in_a_request|tok_in_a_class|9999/);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      req: { method: 'POST', headers: { authorization: '[redacted]' } },
      credentials: { token: '[redacted]' },
      frozen: { pin: '[redacted]', reason: 'frozen' },
    });
  });

  it('masks secret-shaped text in messages and in errors (message and stack)', () => {
    const { logger, lines } = capture();
    const key = 'sk_0123456789abcdefghijABCDEFGHIJ';
    logger.error(`request with ${key} failed`);
    logger.error({ err: new Error('cannot connect to postgres://postgres:pa55word@db:5432/pay') }, 'pool');
    const text = lines.join('');
    expect(text).not.toContain(key);
    expect(text).not.toContain('pa55word');
    expect(text).toContain('postgres://postgres:[redacted]@db:5432/pay');
  });
});

describe('scrubSecrets', () => {
  it.each([
    ['an integrator key', 'key sk_AbCdEfGhIjKlMnOpQrStUvWxYz012345 refused', 'key sk_[redacted] refused'],
    ['a finance key', 'fk_AbCdEfGhIjKlMnOpQrStUvWxYz012345', 'fk_[redacted]'],
    ['the admin key', 'admin_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd', 'admin_[redacted]'],
    ['a webhook secret', 'secret whsec_q83vEXAMPLE+/tsHm4w==, rotated', 'secret whsec_[redacted], rotated'],
    ['a bearer credential', 'Authorization: Bearer abc.def', 'Authorization: Bearer [redacted]'],
    ['a URL password', 'DATABASE_URL=postgresql://app:p%40ss@10.0.0.1/pay', 'DATABASE_URL=postgresql://app:[redacted]@10.0.0.1/pay'],
  ])('masks %s', (_what, text, masked) => {
    expect(scrubSecrets(text)).toBe(masked);
  });

  it.each([
    ['ids', 'payment pay_AbCdEfGhIjKlMnOpQrStUvWx of int_AbCdEfGhIjKlMnOpQrStUvWx'],
    ['a URL with a port and no password', 'listening on http://127.0.0.1:3000/x@y'],
    ['words that merely contain a prefix', 'task_AbCdEfGhIjKlMnOpQrStUvWx, disk_0123456789abcdefghij'],
  ])('leaves %s alone', (_what, text) => {
    expect(scrubSecrets(text)).toBe(text);
  });
});
