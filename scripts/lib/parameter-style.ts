/**
 * A parameter value on the wire by its `style` and `explode` (OpenAPI 3 "Style Values"): arrays and
 * objects in a path segment, a query string, a header or a cookie. Primitives are written as text;
 * a parameter described by `content` instead of `schema` carries its value as JSON.
 */
import type { OpenAPI3, ParameterObject } from 'openapi-typescript';
import { deref } from '../../server-stubs/lib/openapi/document.js';
import { isSchemaNode, type SchemaNode } from '../../server-stubs/lib/openapi/json-schema.js';

export interface SerializedParameter {
  /** for `in: path`: the segment text, percent-encoded */
  path?: string;
  /** for `in: query`: name/value pairs, not yet percent-encoded */
  query?: Array<[string, string]>;
  /** for `in: header`: the header value */
  header?: string;
  /** for `in: cookie`: `name=value` pairs for the Cookie header */
  cookie?: string;
}

const text = (value: unknown) => (value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value));

export function serializeParameter(parameter: ParameterObject, value: unknown): SerializedParameter {
  const name = String(parameter.name);
  const where = String(parameter.in);
  if (!parameter.schema && parameter.content) return place(where, name, [[name, JSON.stringify(value)]], encodeURIComponent(JSON.stringify(value)));
  const style = String(parameter.style ?? (where === 'query' || where === 'cookie' ? 'form' : 'simple'));
  const explode = typeof parameter.explode === 'boolean' ? parameter.explode : style === 'form';
  const enc = where === 'path' ? encodeURIComponent : (s: string) => s;

  if (Array.isArray(value)) {
    const items = value.map((v) => enc(text(v)));
    switch (style) {
      case 'label':
        return { path: `.${items.join(explode ? '.' : ',')}` };
      case 'matrix':
        return { path: explode ? items.map((v) => `;${name}=${v}`).join('') : `;${name}=${items.join(',')}` };
      case 'spaceDelimited':
        return place(where, name, [[name, items.join(' ')]], items.join('%20'));
      case 'pipeDelimited':
        return place(where, name, [[name, items.join('|')]], items.join('|'));
      case 'form':
        return place(where, name, explode ? items.map((v) => [name, v]) : [[name, items.join(',')]], items.join(','));
      default:
        return place(where, name, [[name, items.join(',')]], items.join(','));
    }
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(([k, v]) => [enc(k), enc(text(v))] as const);
    const flat = entries.flat().join(',');
    const pairs = entries.map(([k, v]) => `${k}=${v}`);
    switch (style) {
      case 'deepObject':
        return { query: entries.map(([k, v]) => [`${name}[${k}]`, v]) };
      case 'label':
        return { path: explode ? entries.map(([k, v]) => `.${k}=${v}`).join('') : `.${flat}` };
      case 'matrix':
        return { path: explode ? entries.map(([k, v]) => `;${k}=${v}`).join('') : `;${name}=${flat}` };
      case 'form':
        return place(where, name, explode ? entries.map(([k, v]) => [k, v]) : [[name, flat]], explode ? pairs.join(',') : flat);
      // Keys and values in one list, as the array styles join their items. The 3.0 Style Values
      // table shows the list alone (`R%20100%20G%20200`); under the parameter's name, as the array
      // forms and the validators and Prism read it, a server can find it.
      case 'spaceDelimited':
        return place(where, name, [[name, entries.flat().join(' ')]], entries.flat().join('%20'));
      case 'pipeDelimited':
        return place(where, name, [[name, entries.flat().join('|')]], entries.flat().join('|'));
      default:
        return place(where, name, [[name, explode ? pairs.join(',') : flat]], explode ? pairs.join(',') : flat);
    }
  }
  const atom = enc(text(value));
  if (style === 'label') return { path: `.${atom}` };
  if (style === 'matrix') return { path: `;${name}=${atom}` };
  return place(where, name, [[name, atom]], atom);
}

/**
 * Whether the styles can write a parameter's values: scalars, and arrays and objects of scalars.
 * OpenAPI 3 defines no serialization for an array of objects or an object of arrays (a header list
 * of records, say): a document that wants one describes the parameter by `content`. A client can only
 * leave such a parameter out, which the request builders do where it is optional.
 */
export function hasStyleSerialization(document: OpenAPI3, parameter: ParameterObject): boolean {
  if (parameter.content || !parameter.schema) return true;
  const schemaAt = (node: unknown): SchemaNode => {
    const schema = deref(document, node);
    return isSchemaNode(schema) ? schema : {};
  };
  const schema = schemaAt(parameter.schema);
  const nested = (member: unknown) => {
    const { type, properties } = schemaAt(member);
    const types = [type].flat();
    return types.includes('object') || types.includes('array') || Boolean(properties);
  };
  if (schema.items && nested(schema.items)) return false;
  return !Object.values(schema.properties ?? {}).some(nested);
}

/** The same serialization for whichever place the parameter goes. */
function place(where: string, name: string, pairs: Array<[string, string]>, single: string): SerializedParameter {
  if (where === 'query') return { query: pairs };
  if (where === 'cookie') return { cookie: pairs.map(([k, v]) => `${k}=${v}`).join('; ') };
  if (where === 'header') return { header: single };
  return { path: single };
}
