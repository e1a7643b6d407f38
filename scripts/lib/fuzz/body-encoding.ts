/** Request bodies as the fuzzer puts them on the wire, and as a server reads them back. */
import { encodeJson, Repeat } from './arbitraries.js';
import { bodyText, percentEncode, type BodyPart } from './wire.js';
import { isFormType, isJsonType, isMultipartType } from '../../../server-stubs/lib/media-types.js';

/** The boundary of the multipart bodies the generator writes. */
const BOUNDARY = 'fuzzboundary';

/** The Content-Type of a body in a media type: a multipart one names its boundary. */
export function contentTypeOf(mediaType: string): string {
  return isMultipartType(mediaType) && !/boundary=/i.test(mediaType) ? `${mediaType}; boundary=${BOUNDARY}` : mediaType;
}

const fieldText = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

/** A body value on the wire in its media type. */
export function encodeBody(mediaType: string, value: unknown): BodyPart[] {
  if (isJsonType(mediaType)) return encodeJson(value);
  if (isMultipartType(mediaType)) {
    const fields = value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : [['value', value] as const];
    const parts = fields.flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k.replace(/["\r\n]/g, '_')}"\r\n\r\n${fieldText(x)}\r\n`));
    return [`${parts.join('')}--${BOUNDARY}--\r\n`];
  }
  if (isFormType(mediaType)) {
    if (!value || typeof value !== 'object') return [percentEncode(String(value))];
    return [
      Object.entries(value)
        .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as const) : [[k, v] as const]))
        .map(([k, v]) => `${percentEncode(k)}=${percentEncode(typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))}`)
        .join('&'),
    ];
  }
  return [typeof value === 'string' ? value : JSON.stringify(value)];
}

/** What a server sees after parsing, for the validity check (form fields are strings). */
export function parsedBody(mediaType: string, parts: BodyPart[]): { ok: true; value: unknown } | { ok: false } {
  const text = bodyText(parts);
  if (text === undefined) return { ok: false };
  if (isJsonType(mediaType)) {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      return { ok: false };
    }
  }
  if (isFormType(mediaType)) return { ok: true, value: Object.fromEntries(new URLSearchParams(text)) };
  return { ok: true, value: text };
}

/** Replaces oversized stand-ins by small values of the same shape, to run ajv on what the schema would say. */
export function standIn(value: unknown): unknown {
  if (value instanceof Repeat) return value.asString ? 'x'.repeat(Math.min(value.times, 5000)) : Array.from({ length: Math.min(value.times, 600) }, () => value.item);
  if (Array.isArray(value)) return value.map(standIn);
  const proto = value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  // Plain objects (fast-check's records have no prototype); other instances are left alone.
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as object)) Object.defineProperty(out, k, { value: standIn(v), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}
