/**
 * Security for a stub with no seeded credentials: each scheme of the contract is satisfied by any
 * credential presented the way the scheme says (presence only). The contract still decides where
 * one is needed, and its alternatives and `security: []` are the framework's to honour.
 */
import type { Request } from 'express';
import { bearerToken, fail, type SecurityHandler } from './auth.js';
import { ApiError } from './errors.js';
import type { JsonNode } from '../../scripts/lib/operations.js';

/** One handler per security scheme of the document. */
export function presenceSecurity(document: JsonNode): Record<string, SecurityHandler> {
  const schemes: Record<string, JsonNode> = document.components?.securitySchemes ?? {};
  return Object.fromEntries(Object.entries(schemes).map(([name, scheme]) => [name, presenceOf(name, scheme)]));
}

/** How a client presents a credential of the scheme, in words for the start banner: `Authorization: Bearer <any token>`. */
export function presentation(scheme: JsonNode): string {
  const type = String(scheme.type ?? '');
  if (type === 'http') {
    const kind = String(scheme.scheme ?? '').toLowerCase();
    if (kind === 'basic') return 'Authorization: Basic <base64 of any user:password>';
    if (kind === 'bearer') return 'Authorization: Bearer <any token>';
    return `Authorization: ${scheme.scheme} <any credentials>`;
  }
  if (type === 'apiKey') {
    if (scheme.in === 'query') return `?${scheme.name}=<any key>`;
    if (scheme.in === 'cookie') return `Cookie: ${scheme.name}=<any value>`;
    return `${scheme.name}: <any key>`;
  }
  if (type === 'oauth2' || type === 'openIdConnect') return 'Authorization: Bearer <any token>';
  return `${type}: not checked`;
}

function presenceOf(name: string, scheme: JsonNode): SecurityHandler {
  const refuse = (req: Request, message: string): never => fail(req, new ApiError(401, 'unauthenticated', message));
  const accept = (req: Request, value: string) => {
    req.principal = { id: `${name}:${value}` };
    return true;
  };
  const type = String(scheme.type ?? '');
  if (type === 'http') {
    const kind = String(scheme.scheme ?? '').toLowerCase();
    if (kind === 'bearer') {
      return (req) => {
        const token = bearerToken(req);
        return token ? accept(req, token) : refuse(req, `${name}: send Authorization: Bearer <token>`);
      };
    }
    if (kind === 'basic') {
      return (req) => {
        const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(req.headers.authorization ?? '');
        const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
        return decoded.includes(':') ? accept(req, decoded.slice(0, decoded.indexOf(':'))) : refuse(req, `${name}: send Authorization: Basic <base64 of user:password>`);
      };
    }
    const prefix = new RegExp(`^${kind.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+(\\S.*)$`, 'i');
    return (req) => {
      const value = prefix.exec(req.headers.authorization ?? '')?.[1];
      return value ? accept(req, value) : refuse(req, `${name}: send Authorization: ${scheme.scheme} <credentials>`);
    };
  }
  if (type === 'apiKey') {
    const key = String(scheme.name ?? '');
    if (scheme.in === 'query') {
      return (req) => {
        const value = (req.query as Record<string, unknown>)[key];
        return typeof value === 'string' && value ? accept(req, value) : refuse(req, `${name}: send the query parameter ${key}`);
      };
    }
    if (scheme.in === 'cookie') {
      return (req) => {
        const value = (req.cookies as Record<string, string> | undefined)?.[key];
        return value ? accept(req, value) : refuse(req, `${name}: send the cookie ${key}`);
      };
    }
    return (req) => {
      const value = req.headers[key.toLowerCase()];
      const text = Array.isArray(value) ? value[0] : value;
      return text ? accept(req, text) : refuse(req, `${name}: send the header ${key}`);
    };
  }
  if (type === 'oauth2' || type === 'openIdConnect') {
    return (req) => {
      const token = bearerToken(req);
      return token ? accept(req, token) : refuse(req, `${name}: send Authorization: Bearer <access token>`);
    };
  }
  // mutualTLS and types this stub does not know: the connection is what presents them, nothing to check here.
  return () => true;
}
