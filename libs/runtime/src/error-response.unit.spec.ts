import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { toErrorResponse } from './error-response';

describe('toErrorResponse', () => {
  it('answers a request whose body broke off 400 invalid_request', async () => {
    // The error Node itself raises when a client goes away mid-body.
    let server!: ReturnType<typeof createServer>;
    const raised = new Promise<Error>((resolve) => {
      server = createServer((request) => request.on('error', resolve).resume());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
    setTimeout(() => socket.destroy(), 100);
    try {
      expect(toErrorResponse(await raised)).toEqual({
        status: 400,
        body: { error: { code: 'invalid_request', message: 'the request was aborted before its body was complete' } },
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers PostgreSQL’s connection reset (read ECONNRESET) 503 service_unavailable, not 400', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
    expect(toErrorResponse(reset)).toEqual({
      status: 503,
      body: { error: { code: 'service_unavailable', message: 'the service cannot reach its database right now; retry shortly' } },
    });
  });
});
