/**
 * Path, header and cookie parameters as their `style` and `explode` write them (OpenAPI 3 "Style
 * Values"), read back into the arrays, objects and scalars their schemas describe before the
 * validator sees them: the validator's own mutator reads only query styles and non-exploded arrays.
 * Of the query, the forms its mutator leaves as text are read after it (`delimitedQueryReader`).
 */
import type { NextFunction, Request, Response } from 'express';
import type { OpenAPI3 } from 'openapi-typescript';
import type { Contract, OperationInfo } from './contract.js';
import { deref } from './openapi/document.js';
import { isSchemaNode } from './openapi/json-schema.js';

interface Styled {
  name: string;
  in: 'path' | 'header' | 'cookie' | 'query';
  style: string;
  explode: boolean;
  shape: 'array' | 'object' | 'scalar';
}

/** The step: parameters of the matched operation rewritten in place (path parameters on `req.matched`). */
export function deserializeStyledParameters(contract: Contract) {
  const byOperation = new Map<OperationInfo, Styled[]>();
  const styledOf = (operation: OperationInfo): Styled[] => {
    let styled = byOperation.get(operation);
    if (!styled) byOperation.set(operation, (styled = styledParameters(contract.document, operation)));
    return styled;
  };
  return (req: Request, _res: Response, next: NextFunction) => {
    const matched = req.matched;
    if (!matched) return next();
    for (const p of styledOf(matched.operation)) {
      if (p.in === 'path') {
        const raw = matched.pathParams[p.name];
        if (typeof raw === 'string') matched.pathParams[p.name] = read(raw, p);
      } else if (p.in === 'header') {
        const key = p.name.toLowerCase();
        const raw = req.headers[key];
        // Several header lines of one name are one comma-separated list (RFC 9110 §5.3).
        const text = Array.isArray(raw) ? raw.join(',') : raw;
        if (typeof text === 'string') (req.headers as Record<string, unknown>)[key] = read(text, p);
      } else if (req.cookies && typeof req.cookies[p.name] === 'string') {
        // The shared empty cookie jar is frozen; a request with cookies has its own.
        if (Object.isFrozen(req.cookies)) continue;
        (req.cookies as Record<string, unknown>)[p.name] = read(req.cookies[p.name] as string, p);
      }
    }
    next();
  };
}

/**
 * For an operation, what reads the query values the validator's mutator leaves as text though their
 * schema is an array or an object: an empty non-exploded list (`array=` is no items, not one empty
 * one) and an object written non-exploded in the form, spaceDelimited or pipeDelimited style
 * (`object=R|100|G|200`). Undefined where the operation has none.
 */
export function delimitedQueryReader(document: OpenAPI3, operation: OperationInfo): ((query: Record<string, unknown>) => void) | undefined {
  const delimited: Styled[] = [];
  for (const raw of operation.op.parameters) {
    const p = deref(document, raw);
    if (!p || p.content || p.in !== 'query') continue;
    const style = p.style ?? 'form';
    const explode = p.explode ?? style === 'form';
    const shape = shapeOf(document, p.schema);
    if (shape !== 'scalar' && !explode && ['form', 'spaceDelimited', 'pipeDelimited'].includes(style)) delimited.push({ name: p.name, in: 'query', style, explode, shape });
  }
  if (delimited.length === 0) return undefined;
  return (query) => {
    for (const p of delimited) {
      const value = query[p.name];
      // The query parser has percent-decoded it already.
      if (typeof value === 'string') query[p.name] = read(value, p, (text) => text);
    }
  };
}

function styledParameters(document: OpenAPI3, operation: OperationInfo): Styled[] {
  const out: Styled[] = [];
  for (const raw of operation.op.parameters) {
    const p = deref(document, raw);
    if (!p || p.content || (p.in !== 'path' && p.in !== 'header' && p.in !== 'cookie')) continue;
    const style = p.style ?? (p.in === 'cookie' ? 'form' : 'simple');
    const explode = p.explode ?? style === 'form';
    const shape = shapeOf(document, p.schema);
    // A scalar written in the simple or form style is already what it is.
    if (shape === 'scalar' && style !== 'label' && style !== 'matrix') continue;
    out.push({ name: p.name, in: p.in, style, explode, shape });
  }
  return out;
}

function shapeOf(document: OpenAPI3, schemaRef: unknown, depth = 0): Styled['shape'] {
  const schema = deref(document, schemaRef);
  if (!isSchemaNode(schema) || depth > 8) return 'scalar';
  const types = [schema.type].flat();
  if (types.includes('array')) return 'array';
  if (types.includes('object') || schema.properties) return 'object';
  for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
    const shape = shapeOf(document, part, depth + 1);
    if (shape !== 'scalar') return shape;
  }
  return 'scalar';
}

/** One parameter's text as its value. */
function read(text: string, p: Styled, decode = decodeText): unknown {
  let body = text;
  let separator = ',';
  if (p.style === 'spaceDelimited') separator = ' ';
  else if (p.style === 'pipeDelimited') separator = '|';
  else if (p.style === 'label') {
    body = body.replace(/^\./, '');
    if (p.explode) separator = '.';
  } else if (p.style === 'matrix') {
    // `;name=a;name=b` (exploded array), `;name=a,b`, `;k=v;k2=v2` (exploded object)
    if (p.explode && p.shape !== 'scalar') {
      const parts = body.split(';').filter(Boolean);
      if (p.shape === 'array') return parts.map((part) => decode(part.slice(part.indexOf('=') + 1)));
      return Object.fromEntries(parts.map((part) => [decode(part.slice(0, part.indexOf('='))), decode(part.slice(part.indexOf('=') + 1))]));
    }
    body = body.replace(new RegExp(`^;${escape(p.name)}=?`), '');
  } else if (p.style === 'form' && p.explode && p.in === 'cookie' && body.includes('&')) {
    // A cookie has one value: clients write an exploded form list or object `a&name=b` or
    // `k=v&k2=v2`, or, as most do, with commas like the non-exploded form.
    separator = '&';
  }
  if (p.shape === 'scalar') return decode(body);
  const items = body === '' ? [] : body.split(separator).map((item) => item.replace(new RegExp(`^${escape(p.name)}=`), ''));
  if (p.shape === 'array') return items.map(decode);
  // `k=v` pairs where the items say so (exploded), else alternating keys and values.
  if (items.every((item) => item.includes('='))) return Object.fromEntries(items.map((item) => [decode(item.slice(0, item.indexOf('='))), decode(item.slice(item.indexOf('=') + 1))]));
  const object: Record<string, string> = {};
  for (let i = 0; i + 1 < items.length; i += 2) object[decode(items[i]!)] = decode(items[i + 1]!);
  return object;
}

function decodeText(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
