import type { OpenAPI3 } from 'openapi-typescript';
import { banner } from '../lib/banner.js';

/** How the root extension `x-webhook-signature` says the service signs its webhook posts. */
interface SignatureScheme {
  header: string;
  algorithm: 'hmac-sha256';
  encoding: 'hex';
  prefix: string;
}

export function hasWebhooks(document: OpenAPI3): boolean {
  return Object.keys(document.webhooks ?? {}).length > 0;
}

/**
 * Types of a service's outbound webhooks (name -> JSON payload) and, when the contract declares
 * `x-webhook-signature`, a signer and a constant-time verifier for receivers. Web Crypto only, so
 * the file runs in Node 20 and in browsers alike.
 */
export function generateWebhooks(slug: string, document: OpenAPI3): string | undefined {
  if (!hasWebhooks(document)) return undefined;
  const names = Object.keys(document.webhooks ?? {});
  const scheme = document['x-webhook-signature'] as SignatureScheme | undefined;
  if (scheme && (scheme.algorithm !== 'hmac-sha256' || scheme.encoding !== 'hex')) {
    throw new Error(`${slug}: x-webhook-signature ${scheme.algorithm}/${scheme.encoding} is not supported (hmac-sha256/hex is)`);
  }
  const signing = scheme
    ? `
/** How the service signs each webhook post (the contract's \`x-webhook-signature\`). */
export const webhookSignature = ${JSON.stringify({ header: scheme.header, algorithm: scheme.algorithm, encoding: scheme.encoding, prefix: scheme.prefix })} as const;

const encoder = new TextEncoder();

async function hmacHex(rawBody: string | Uint8Array, secret: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  // A copy, so the view is over a plain ArrayBuffer as Web Crypto wants.
  const data = typeof rawBody === 'string' ? encoder.encode(rawBody) : new Uint8Array(rawBody);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The \`${scheme.header}\` value for a raw body: \`${scheme.prefix}<hex HMAC-SHA256 of the raw body>\`. */
export async function signWebhookPayload(rawBody: string | Uint8Array, secret: string): Promise<string> {
  return \`${scheme.prefix}\${await hmacHex(rawBody, secret)}\`;
}

/**
 * Verifies a webhook post: HMAC-SHA256 (hex) over the raw body, exactly as received (parse the JSON
 * only after this), with the signing secret, compared in constant time with the \`${scheme.header}\`
 * header. A missing or malformed header fails.
 */
export async function verifyWebhookSignature(rawBody: string | Uint8Array, header: string | null | undefined, secret: string): Promise<boolean> {
  if (typeof header !== 'string' || !header.startsWith(${JSON.stringify(scheme.prefix)})) return false;
  const expected = await hmacHex(rawBody, secret);
  const given = header.slice(${scheme.prefix.length}).toLowerCase();
  let difference = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) difference |= expected.charCodeAt(i) ^ (given.charCodeAt(i) || 0);
  return difference === 0;
}
`
    : '';
  return `${banner(`generated/${slug}/openapi.json`)}
import type { webhooks } from './types.gen.js';

/** The webhooks of the contract, by their key under \`webhooks\`. */
export const webhookNames = ${JSON.stringify(names)} as const;

export type WebhookName = keyof webhooks;

/** The JSON body a webhook posts. */
export type WebhookPayload<N extends WebhookName> = webhooks[N] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never;
${signing}`;
}
