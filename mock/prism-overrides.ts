/**
 * Prism's own override query parameters, `?__code=404` and `?__example=name`, asked of the mock.
 * Passed to Prism as they came, an undeclared status or unknown example became Prism's 404 (which the
 * proxy took for an answer off the contract, a 500), and `__example` looked only in the default
 * status. So they are read as the `Prefer` preferences they stand for and resolved as those are
 * (server-stubs/lib/prefer.ts): a declared status, a named example of whichever status has it, or a
 * bad request naming what the operation lacks. Prism sees the pinned `Prefer` and a query without them.
 */
import type { NextFunction, Request, Response } from 'express';
import { unescape } from 'node:querystring';
import type { OpenAPI3 } from 'openapi-typescript';
import type { OperationInfo } from '../server-stubs/lib/contract.js';
import { failureOf } from '../server-stubs/lib/failures.js';
import { parsePrefer, resolvePreference } from '../server-stubs/lib/prefer.js';

const OVERRIDE = /^__(code|example)$/;

export function prismQueryOverrides(served: OpenAPI3) {
  return (req: Request, res: Response, next: NextFunction) => {
    const at = req.url.indexOf('?');
    if (at === -1 || !req.url.includes('__', at)) return next();
    const kept: string[] = [];
    const asked = new Map<string, string>();
    for (const pair of req.url.slice(at + 1).split('&')) {
      const equals = pair.indexOf('=');
      // unescape, unlike decodeURIComponent, leaves broken percent-encoding as it is instead of throwing.
      const name = OVERRIDE.exec(unescape(equals === -1 ? pair : pair.slice(0, equals)))?.[1];
      if (name) asked.set(name, unescape(equals === -1 ? '' : pair.slice(equals + 1).replaceAll('+', ' ')));
      else kept.push(pair);
    }
    if (asked.size === 0) return next();
    req.url = kept.length > 0 ? `${req.url.slice(0, at)}?${kept.join('&')}` : req.url.slice(0, at);
    // The query names the answer; the header's other preferences (`dynamic`, say) still count.
    const others = [...parsePrefer(req.headers.prefer)].filter(([name]) => !asked.has(name));
    const header = [...asked, ...others].map(([name, value]) => (value ? `${name}=${value}` : name)).join(', ');
    const operation: OperationInfo = res.locals.operation!;
    const preference = resolvePreference(served, operation, header, req.headers.accept, '?__');
    if (preference.kind === 'refused') return next(failureOf('validation', preference.status, preference.message));
    if (preference.kind === 'pinned') req.headers.prefer = preference.header;
    else delete req.headers.prefer;
    next();
  };
}
