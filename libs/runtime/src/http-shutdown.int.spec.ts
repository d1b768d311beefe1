import 'reflect-metadata';
import { connect, type Socket } from 'node:net';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import pino from 'pino';
import { configureHttp, fastifyOptions } from './http-setup';

/**
 * A server that is shutting down, over real HTTP: a request that reaches it after close began (on a
 * connection accepted just before, its request still arriving) is served like any other, with
 * `Connection: close`, never answered with Fastify's own 503 `{"error":"Service Unavailable",…}`, which
 * is not the contract's error shape and which a client could not tell from an outage. The apps behind
 * the server stop only after it has closed. Every response from then on ends its connection, the one in
 * flight when close began too, so a keep-alive client cannot hold the process up.
 */
let releaseSlow: () => void = () => undefined;
let slowStarted: () => void = () => undefined;

@Controller()
class ShutdownProbeController {
  @Get('slow')
  async slow(): Promise<{ slow: true }> {
    slowStarted();
    await new Promise<void>((resolve) => (releaseSlow = resolve));
    return { slow: true };
  }

  @Get('fast')
  fast(): { fast: true } {
    return { fast: true };
  }
}

@Module({ controllers: [ShutdownProbeController] })
class ShutdownProbeModule {}

/** Reads raw HTTP/1.1 responses off a socket until `count` complete ones have arrived (or it closes). */
const readResponses = (socket: Socket, count: number): Promise<{ status: number; headers: string; body: string }[]> =>
  new Promise((resolve, reject) => {
    let buffered = '';
    const responses: { status: number; headers: string; body: string }[] = [];
    const parse = () => {
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const headers = buffered.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        responses.push({ status: Number(headers.split(' ')[1]), headers: headers.toLowerCase(), body: buffered.slice(end + 4, end + 4 + length) });
        buffered = buffered.slice(end + 4 + length);
        if (responses.length === count) resolve(responses);
      }
    };
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      parse();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(responses));
  });

describe('HTTP server shutting down', () => {
  let app: NestFastifyApplication;
  const sockets: Socket[] = [];
  const open = (port: number) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    return socket;
  };

  afterEach(async () => {
    releaseSlow();
    for (const socket of sockets.splice(0)) socket.destroy();
    await app?.close().catch(() => undefined);
  });

  it('serves a request that arrives after close began, not with a 503 of its own, and ends every connection so that it stops', async () => {
    app = await NestFactory.create<NestFastifyApplication>(ShutdownProbeModule, new FastifyAdapter(fastifyOptions), { logger: false, bodyParser: false });
    configureHttp(app, pino({ level: 'silent' }));
    const closing = new Promise<void>((resolve) =>
      app.getHttpAdapter().getInstance().addHook('preClose', (done: () => void) => {
        resolve();
        done();
      }),
    );
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };

    // One request in flight keeps the server open while it closes.
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    const inFlight = open(port);
    const slowResponse = readResponses(inFlight, 1);
    inFlight.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await started;
    // Another connection has begun its request (as one accepted just before a rolling restart's SIGTERM).
    const late = open(port);
    const lateResponse = readResponses(late, 1);
    late.write('GET /fast HTTP/1.1\r\nHost: localhost\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));

    const closed = app.close();
    await closing;
    late.write('\r\n'); // the request completes once close has begun

    const [fast] = await lateResponse;
    releaseSlow();
    const [slow] = await slowResponse;
    expect(fast).toMatchObject({ status: 200, body: '{"fast":true}' });
    expect(fast!.headers).toContain('connection: close');
    expect(slow).toMatchObject({ status: 200, body: '{"slow":true}' });
    // In flight when close began: its connection ends too, so the server stops without waiting out a keep-alive.
    expect(slow!.headers).toContain('connection: close');
    await closed;
  });
});
