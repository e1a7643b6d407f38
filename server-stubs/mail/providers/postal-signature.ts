import { createPublicKey, createSign, createVerify, type KeyObject } from 'node:crypto';

/**
 * The designed signature of mail server B (Postal's scheme): `X-Postal-Signature` is the base64
 * RSA-SHA1 signature of the exact request bytes, made with the server's private key. The public key
 * is configured as PEM, or as the bare base64 SPKI that Postal's web interface shows.
 */
export function postalPublicKey(configured: string): KeyObject {
  const text = configured.trim();
  if (text.includes('-----BEGIN')) return createPublicKey(text);
  return createPublicKey({ key: Buffer.from(text.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' });
}

export function verifyPostalSignature(rawBody: Buffer, signature: string, key: KeyObject): boolean {
  const decoded = Buffer.from(signature.trim(), 'base64');
  if (decoded.length === 0) return false;
  return createVerify('RSA-SHA1').update(rawBody).verify(key, decoded);
}

/** What the mail server does (for tests and the scenario, with the published test key). */
export function signPostalBody(body: string | Buffer, privateKeyPem: string): string {
  return createSign('RSA-SHA1').update(body).sign(privateKeyPem, 'base64');
}
