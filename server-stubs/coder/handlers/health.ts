import { coderHandlers, type CoderDeps } from '../context.js';

export function healthHandlers({ switches, upstream }: CoderDeps) {
  return coderHandlers({
    getHealth: () => ({
      status: 200,
      body: {
        status: switches.sessionStore && switches.router ? 'ok' : 'degraded',
        session_store: switches.sessionStore ? 'ok' : 'disabled',
        router: switches.router ? 'ok' : 'disabled',
        upstream: upstream.configured ? 'configured' : 'not_configured',
      },
    }),
  });
}
