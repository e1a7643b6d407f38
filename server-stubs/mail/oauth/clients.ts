import { randomBytes } from 'node:crypto';
import type { Collection, StateStore } from '../../lib/store.js';
import { parseScope } from './scopes.js';

export interface OAuthClient {
  clientId: string;
  clientName?: string;
  redirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  /** the scopes the client registered for; when absent it may ask for any supported scope */
  scope?: string;
  logoUri?: string;
  clientUri?: string;
  contacts?: string[];
}

/** Dynamically registered clients (RFC 7591). Public clients only: none gets a secret. */
export class OAuthClients {
  private readonly clients: Collection<OAuthClient>;

  constructor(state: StateStore) {
    this.clients = state.collection('oauth.clients');
  }

  register(metadata: Omit<OAuthClient, 'clientId'>): OAuthClient {
    // `dyn_` + 32 hex digits, the form of a uuid without dashes (document: OAuth client).
    const client: OAuthClient = { clientId: `dyn_${randomBytes(16).toString('hex')}`, ...metadata };
    return this.clients.set(client.clientId, client);
  }

  get(clientId: string | undefined): OAuthClient | undefined {
    return clientId === undefined ? undefined : this.clients.get(clientId);
  }
}

/** Exact string comparison, never prefix or pattern matching (RFC 9700 §2.1, §4.1). */
export function isRegisteredRedirectUri(client: OAuthClient, redirectUri: string): boolean {
  return client.redirectUris.includes(redirectUri);
}

/** Scopes beyond the ones the client registered for; a client that registered none may ask for any. */
export function scopesBeyondRegistration(client: OAuthClient, requested: string[]): string[] {
  if (client.scope === undefined) return [];
  const registered = new Set(parseScope(client.scope));
  return requested.filter((s) => !registered.has(s));
}
