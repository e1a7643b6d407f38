/**
 * A self-signed certificate for a TLS test server on 127.0.0.1, made in memory with node:crypto
 * alone (Node has no API that writes certificates, and the project takes no package for it): a P-256
 * key and an X.509 v3 certificate whose DER is written here, signed with ECDSA-SHA256. Nothing is
 * written to disk. Clients that verify certificates refuse it, as they would any self-signed one.
 */
import { generateKeyPairSync, sign } from 'node:crypto';

const tlv = (tag: number, content: Buffer): Buffer => {
  const n = content.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
};
const sequence = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const integer = (bytes: number[]) => tlv(0x02, Buffer.from(bytes));
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
const utcTime = (date: Date) => tlv(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-:T]/g, '')}Z`, 'ascii'));
const bitString = (bytes: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));
const explicit = (n: number, content: Buffer) => tlv(0xa0 + n, content);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const value of rest) {
    const groups = [value & 0x7f];
    for (let v = value >> 7; v > 0; v >>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
const commonName = (cn: string) => sequence(set(sequence(oid('2.5.4.3'), utf8(cn))));
/** subjectAltName with the IP address 127.0.0.1 (not critical). */
const subjectAltName = sequence(oid('2.5.29.17'), tlv(0x04, sequence(tlv(0x87, Buffer.from([127, 0, 0, 1])))));

export function selfSignedCertificate(cn = '127.0.0.1'): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = Date.now();
  const tbs = sequence(
    explicit(0, integer([2])), // v3
    integer([0x01, ...Array.from({ length: 8 }, (_, i) => (now >> (i * 4)) & 0xff)]),
    ecdsaWithSha256,
    commonName(cn),
    sequence(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 86_400_000))),
    commonName(cn),
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(subjectAltName)),
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA signature
  const der = sequence(tbs, ecdsaWithSha256, bitString(signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), cert: pem };
}
