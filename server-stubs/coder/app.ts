import { createHash } from 'node:crypto';
import type { operationDefaults, operations } from '../../generated/coder/types.gen.js';
import type { Request } from 'express';
import { bearerToken, fail, type SecurityHandler } from '../lib/auth.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { ApiError } from '../lib/errors.js';
import { allowLoopbackFromEnv, resolverFromEnv, type Resolver } from '../lib/net-guard.js';
import { localRetriever, type Retriever } from '../lib/retrieval.js';
import type { RouterSwitches, StubCredential, StubEnvironment } from '../lib/service.js';
import { createStubApp, stubService } from '../lib/stub-app.js';
import { StateStore } from '../lib/store.js';
import type { CoderDeps, CoderHandlers, CoderPrincipal, CoderSwitches } from './context.js';
import { coderErrors } from './errors.js';
import { gatewayHandlers } from './handlers/gateway.js';
import { platformHandlers } from './handlers/platform.js';
import { localRouter, openAICompatibleRouter, type ChatRouter } from './router.js';
import { SessionsStore } from './sessions-store.js';
import { vendorUpstream } from './upstream.js';
import { createPlatformState, type PlatformOptions } from './platform-state.js';

const ownerOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** Seeded keys (CONVENTIONS §6, DECISIONS coder-2): each is an owner of its own. */
export const coderCredentials = [
  { label: 'API key', scheme: 'bearerAuth', value: 'coder_test_key', tenant: ownerOf('coder_test_key') },
  { label: 'API key (another owner)', scheme: 'bearerAuth', value: 'coder_test_key_2', tenant: ownerOf('coder_test_key_2') },
  { label: 'API key as x-api-key (messages routes)', scheme: 'apiKeyHeader', value: 'coder_test_key', tenant: ownerOf('coder_test_key') },
] as const satisfies ReadonlyArray<StubCredential & { tenant: string }>;

export interface CoderAppOptions extends StubEnvironment, Partial<CoderSwitches>, RouterSwitches {
  clock?: Clock;
  /** the model router (default: the local responder, or CODER_ROUTER_URL's server) */
  chatRouter?: ChatRouter;
  /** what the research agent searches (default: the local corpus) */
  retriever?: Retriever;
  /** DNS for the upstream's SSRF guard (default: `STUB_DNS_SERVER` or the system's) */
  resolver?: Resolver;
  /** let the upstream be on loopback (default: `STUB_ALLOW_LOOPBACK=1`) */
  allowLoopback?: boolean;
  /** the platform routes' tool-server settings (stdio policy, timeouts); resolver and loopback default to the two above */
  platform?: Partial<PlatformOptions>;
}

/** DECISIONS coder-8: the switches `npm start` reads from the environment. */
export function switchesFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<CoderSwitches> & Pick<CoderAppOptions, 'chatRouter'> {
  const off = (v: string | undefined) => v !== undefined && /^(0|off|false|no)$/i.test(v.trim());
  return {
    ...(env.CODER_KEYS !== undefined && { keys: env.CODER_KEYS.split(',').map((k) => k.trim()).filter(Boolean) }),
    ...(off(env.CODER_SESSION_STORE) && { sessionStore: false }),
    ...(off(env.CODER_ROUTER) && { router: false }),
    ...(env.CODER_UPSTREAM_URL && { upstreamUrl: env.CODER_UPSTREAM_URL }),
    ...(env.CODER_UPSTREAM_TIMEOUT_MS && { upstreamTimeoutMs: Number(env.CODER_UPSTREAM_TIMEOUT_MS) }),
    ...(env.CODER_VENDOR_PREFIX && { vendorPrefix: env.CODER_VENDOR_PREFIX }),
    ...(env.CODER_ROUTER_URL && { chatRouter: openAICompatibleRouter(env.CODER_ROUTER_URL, env.CODER_ROUTER_KEY) }),
  };
}

export function createCoderApp(options: CoderAppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const switches: CoderSwitches = {
    keys: options.keys ?? [...new Set(coderCredentials.map((c) => c.value))],
    sessionStore: options.sessionStore ?? true,
    router: options.router ?? true,
    upstreamUrl: options.upstreamUrl,
    upstreamTimeoutMs: options.upstreamTimeoutMs ?? 60_000,
    vendorPrefix: options.vendorPrefix ?? 'claude-',
  };
  // The gateway's own keys are few and fixed: their owners are hashed once, not on every request.
  const keyOwners = new Map(switches.keys.map((key) => [key, ownerOf(key)]));
  const lookup = (token: string): CoderPrincipal | undefined => {
    if (switches.keys.length === 0) return { id: token, owner: null, token, gatewayKey: true };
    const owner = keyOwners.get(token);
    return owner ? { id: owner, owner, token, gatewayKey: true } : undefined;
  };
  // A `claude-*` message carries the caller's vendor key, which the gateway forwards without knowing it.
  const forwardsVendorKey = (req: Request) =>
    req.matched?.operation.id === 'createMessage' && typeof req.body?.model === 'string' && req.body.model.startsWith(switches.vendorPrefix);
  const accept = (req: Request, token: string | undefined): true => {
    // With two schemes (bearer or x-api-key), the one whose credential is absent keeps the other's reason.
    if (!token) fail(req, req.authFailure ?? new ApiError(401, undefined, 'Missing or invalid Authorization header'));
    const principal =
      lookup(token) ?? (forwardsVendorKey(req) ? { id: ownerOf(token), owner: switches.keys.length === 0 ? null : ownerOf(token), token, gatewayKey: false } : undefined);
    if (!principal) fail(req, new ApiError(401, undefined, 'Invalid API key'));
    req.principal = principal;
    return true;
  };
  const bearerAuth: SecurityHandler = (req) => accept(req, bearerToken(req));
  const apiKeyHeader: SecurityHandler = (req) => {
    const value = req.headers['x-api-key'];
    return accept(req, typeof value === 'string' && value.trim() ? value.trim() : undefined);
  };
  const state = new StateStore(clock);
  const deps: CoderDeps = {
    clock,
    switches,
    sessions: new SessionsStore(state),
    router: options.chatRouter ?? localRouter(),
    upstream: vendorUpstream({
      baseUrl: switches.upstreamUrl,
      timeoutMs: switches.upstreamTimeoutMs,
      resolver: options.resolver ?? resolverFromEnv(),
      allowLoopback: options.allowLoopback ?? allowLoopbackFromEnv(),
    }),
    retriever: options.retriever ?? localRetriever(),
  };
  const platform = createPlatformState(state, { resolver: options.resolver, allowLoopback: options.allowLoopback, ...options.platform });
  const handlers = { ...gatewayHandlers(deps), ...platformHandlers(deps, platform) } satisfies Partial<CoderHandlers>;
  const app = createStubApp<operations, CoderPrincipal, operationDefaults, StateStore, Promise<void>>({ ...options, clock }, {
    slug: 'coder',
    handlers,
    security: { bearerAuth, apiKeyHeader },
    errors: coderErrors,
    rawBody: ['createMessage'],
    state,
    reset: () => platform.reset(),
  });
  return { ...app, deps, close: () => platform.close() };
}

export default stubService<CoderAppOptions>({
  slug: 'coder',
  title: 'Coding-assistant gateway',
  credentials: coderCredentials,
  errors: coderErrors,
  create: (options) => createCoderApp({ ...switchesFromEnv(), ...options }),
});
