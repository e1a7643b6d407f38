import type { NextFunction, Request, Response } from 'express';

/**
 * RFC 8414 §3.1 (and RFC 8615): the metadata of an issuer with a path, `http://host/mail`, is found
 * at `http://host/.well-known/oauth-authorization-server/mail`. A service serves its metadata under
 * its own base path, so that address is routed there; discovery clients (oauth4webapi) then work.
 */
export function wellKnownUnderIssuer(basePaths: string[]) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const m = /^\/\.well-known\/(oauth-authorization-server|openid-configuration)(\/.+)$/.exec(req.path);
    const basePath = m && basePaths.find((b) => b === m[2]);
    // originalUrl too: the contract validator matches operations on it.
    if (m && basePath) req.url = req.originalUrl = `${basePath}/.well-known/${m[1]}${req.url.slice(req.path.length)}`;
    next();
  };
}
