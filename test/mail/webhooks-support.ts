/**
 * Shared helpers of the webhook tests (not a test file itself): a receiver on 127.0.0.1 that
 * records every POST and answers as told (over TLS with a self-signed certificate made for the
 * test, or over plain HTTP), and payload checks against the contract's `webhooks`.
 */
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { selfSignedCertificate } from '../helpers/self-signed.js';
import type { AddressInfo } from 'node:net';
import { loadContract } from '../../server-stubs/lib/contract.js';
import type { AnswerBody } from '../helpers/answer-body.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: AnswerBody;
  /** whether it came over TLS */
  tls: boolean;
}

export interface Receiver {
  /**
   * `https://127.0.0.1:<port>/hook` (a TLS server, the default: an allowed loopback endpoint is
   * posted to over TLS without verifying its certificate), or `http://…` with `{tls: false}`
   */
  url: string;
  received: Received[];
  /** the status the next POSTs get (default 200) */
  status: number;
  /** the body they get */
  reply: string;
  /** never answer (a timeout) */
  hang: boolean;
  close(): Promise<void>;
}

export async function startReceiver(options: { tls?: boolean } = {}): Promise<Receiver> {
  const tls = options.tls ?? true;
  const hanging = new Set<http.ServerResponse>();
  const state: Receiver = {
    url: '',
    received: [],
    status: 200,
    reply: '{"received":true}',
    hang: false,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.received.push({ headers: req.headers, body, json: JSON.parse(body), tls: (req.socket as TLSSocket).encrypted === true });
      if (state.hang) {
        hanging.add(res);
        return;
      }
      res.writeHead(state.status, { 'content-type': 'text/plain' }).end(state.reply);
    });
  };
  const server = tls ? https.createServer(selfSignedCertificate(), handle) : http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return state;
}

const contract = loadContract('mail');

/** Errors of a delivered payload against the contract's `webhooks` entry (`formA:…`, `formB:…`); [] when valid. */
export function payloadErrors(name: string, payload: unknown): string[] {
  const validate = contract.validator(['webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema']);
  return validate(payload) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`);
}
