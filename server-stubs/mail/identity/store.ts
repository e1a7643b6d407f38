import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

export type Plan = 'free' | 'pro' | 'max';

export interface MailUser {
  id: string;
  email: string;
  name: string;
  plan: Plan;
}

export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  /** the first characters of the raw key, the only part lists ever show */
  prefix: string;
  lastFour: string;
  /** null: an unscoped dashboard key */
  scopes: string[] | null;
  kind: 'dashboard' | 'oauth' | 'internal';
  /** OAuth: the client and the authorization code that issued the token */
  clientId?: string;
  grantId?: string;
  allowedAccountId?: string | null;
  /** epoch ms on the stub clock */
  createdAt: number;
  expiresAt?: number | null;
  revokedAt?: number | null;
  lastUsedAt?: number | null;
}

export interface IssueKeyInput {
  userId: string;
  name: string;
  kind: ApiKeyRecord['kind'];
  scopes: string[] | null;
  clientId?: string;
  grantId?: string;
  ttlSeconds?: number;
  allowedAccountId?: string | null;
}

/** A sending account of a user (`/accounts`, session routes). */
export interface MailAccount {
  id: string;
  userId: string;
  name: string;
  email: string;
  isDefault: boolean;
  createdAt: number;
}

/** Seeds (CONVENTIONS §6, DECISIONS mail-1): one user per plan, each with a dashboard key and a session. */
export const seededUsers: readonly MailUser[] = [
  { id: 'usr_free', email: 'free@example.com', name: 'Free User', plan: 'free' },
  { id: 'usr_pro', email: 'pro@example.com', name: 'Pro User', plan: 'pro' },
  { id: 'usr_max', email: 'max@example.com', name: 'Max User', plan: 'max' },
];

/** OAuth access tokens live 90 days (document: "Limits"). */
export const oauthTokenTtlSeconds = 7_776_000;

/**
 * Dashboard keys of the seeded users, one revoked, and one OAuth token granted only `send` (designed:
 * a scoped token to try the 403 of the scope rules without running the OAuth flow first).
 */
const seededKeys: ReadonlyArray<{ raw: string; userId: string; name: string; revoked?: true; oauthScopes?: string[] }> = [
  { raw: 'msk_test_free', userId: 'usr_free', name: 'Test key' },
  { raw: 'msk_test_pro', userId: 'usr_pro', name: 'Test key' },
  { raw: 'msk_test_max', userId: 'usr_max', name: 'Test key' },
  { raw: 'msk_test_revoked', userId: 'usr_free', name: 'Revoked test key', revoked: true },
  { raw: 'msk_test_oauth_send', userId: 'usr_max', name: 'Test OAuth client', oauthScopes: ['send'] },
];

const seededSessions: ReadonlyArray<{ value: string; userId: string }> = seededUsers.map((u) => ({ value: `sess_test_${u.plan}`, userId: u.id }));

export const keyPrefixLength = 12;

// Raw keys are kept only as digests: the raw value is shown once, at creation.
const digest = (raw: string) => createHash('sha256').update(raw).digest('hex');

/** Users, API keys and sessions of the mail stub; their rows live in the app's state store, reset to the seeds. */
export class IdentityStore {
  readonly clock: Clock;
  private readonly users: Collection<MailUser>;
  private readonly keys: Collection<ApiKeyRecord>;
  /** digest of the raw key → the key's id: how a presented key is found */
  private readonly keyDigests: Collection<{ keyId: string }>;
  /** cookie value → user id */
  private readonly sessions: Collection<{ userId: string }>;
  private readonly accounts: Collection<MailAccount>;

  /** `onPlanChanged` hears of every plan change after the seeds (billing notifications, referral conversions). */
  constructor(
    state: StateStore,
    private onPlanChanged: (change: { userId: string; previousPlan: Plan; plan: Plan }) => void = () => {},
  ) {
    this.clock = state.clock;
    this.users = state.collection('identity.users');
    this.keys = state.collection('identity.keys', { tenantOf: (k) => k.userId, createdAtOf: (k) => k.createdAt });
    this.keyDigests = state.collection('identity.keyDigests');
    this.sessions = state.collection('identity.sessions');
    this.accounts = state.collection('identity.accounts', { tenantOf: (a) => a.userId, createdAtOf: (a) => a.createdAt });
    state.seed(() => this.seed());
  }

  private seed(): void {
    for (const user of seededUsers) this.users.set(user.id, { ...user });
    seededKeys.forEach((seed, i) => {
      const record: ApiKeyRecord = {
        id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
        userId: seed.userId,
        name: seed.name,
        prefix: seed.raw.slice(0, keyPrefixLength),
        lastFour: seed.raw.slice(-4),
        scopes: seed.oauthScopes ?? null,
        kind: seed.oauthScopes ? 'oauth' : 'dashboard',
        allowedAccountId: null,
        createdAt: this.clock.now(),
        expiresAt: seed.oauthScopes ? this.clock.now() + oauthTokenTtlSeconds * 1000 : null,
        revokedAt: seed.revoked ? this.clock.now() : null,
      };
      this.keys.set(record.id, record);
      this.keyDigests.set(digest(seed.raw), { keyId: record.id });
    });
    for (const s of seededSessions) this.sessions.set(s.value, { userId: s.userId });
    seededUsers.forEach((user, i) => {
      const id = `00000000-0000-4000-a000-${String(i + 1).padStart(12, '0')}`;
      this.accounts.set(id, { id, userId: user.id, name: user.name, email: user.email, isDefault: true, createdAt: this.clock.now() });
    });
  }

  user(id: string): MailUser | undefined {
    return this.users.get(id);
  }

  userByEmail(email: string): MailUser | undefined {
    return this.users.find((u) => u.email.toLowerCase() === email.toLowerCase());
  }

  /** A user signing in through SSO for the first time starts on the Free plan. */
  createUser(input: { email: string; name: string }): MailUser {
    const user: MailUser = { id: `usr_${randomUUID()}`, email: input.email, name: input.name, plan: 'free' };
    this.users.set(user.id, user);
    this.createAccount(user.id, { name: user.name, email: user.email });
    return user;
  }

  setPlan(userId: string, plan: Plan): void {
    const user = this.users.get(userId);
    if (!user || user.plan === plan) return;
    const previousPlan = user.plan;
    user.plan = plan;
    this.onPlanChanged({ userId, previousPlan, plan });
  }

  issueKey(input: IssueKeyInput): { record: ApiKeyRecord; raw: string } {
    // Acting on behalf of other users is an internal key's privilege only.
    if (input.kind !== 'internal' && input.scopes?.includes('act-as-user')) throw new Error('act-as-user is held only by internal keys');
    const raw = `msk_${randomBytes(24).toString('hex')}`;
    const now = this.clock.now();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      userId: input.userId,
      name: input.name,
      prefix: raw.slice(0, keyPrefixLength),
      lastFour: raw.slice(-4),
      scopes: input.scopes ? [...input.scopes] : null,
      kind: input.kind,
      ...(input.clientId !== undefined && { clientId: input.clientId }),
      ...(input.grantId !== undefined && { grantId: input.grantId }),
      allowedAccountId: input.allowedAccountId ?? null,
      createdAt: now,
      expiresAt: input.ttlSeconds !== undefined ? now + input.ttlSeconds * 1000 : null,
      revokedAt: null,
    };
    this.keys.set(record.id, record);
    this.keyDigests.set(digest(raw), { keyId: record.id });
    return { record, raw };
  }

  /** Any state: callers check `revokedAt` and `expiresAt`. */
  findKey(raw: string): ApiKeyRecord | undefined {
    const found = this.keyDigests.get(digest(raw));
    return found && this.keys.get(found.keyId);
  }

  /** The user's key with this id; another user's reads as missing. */
  keyOf(userId: string, id: string): ApiKeyRecord | undefined {
    return this.keys.ownedBy(userId, id);
  }

  isActive(record: ApiKeyRecord): boolean {
    const now = this.clock.now();
    return !record.revokedAt && (record.expiresAt == null || record.expiresAt > now);
  }

  /** Every key of the user, revoked and expired ones included, newest first. */
  keysOf(userId: string): ApiKeyRecord[] {
    return this.keys.newest(userId);
  }

  /** The user's keys that still work, newest first. */
  activeKeys(userId: string, kind?: ApiKeyRecord['kind']): ApiKeyRecord[] {
    return this.keys.newest(userId, (k) => this.isActive(k) && (!kind || k.kind === kind));
  }

  touchKey(record: ApiKeyRecord): void {
    record.lastUsedAt = this.clock.now();
  }

  revokeKey(id: string): void {
    const record = this.keys.get(id);
    if (record && !record.revokedAt) record.revokedAt = this.clock.now();
  }

  /** Every key issued from one authorization code. */
  revokeGrant(grantId: string): void {
    for (const record of this.keys.values()) if (record.grantId === grantId) this.revokeKey(record.id);
  }

  // Sending accounts

  accountsOf(userId: string): MailAccount[] {
    return this.accounts.newest(userId).reverse();
  }

  account(userId: string, id: string): MailAccount | undefined {
    return this.accounts.ownedBy(userId, id);
  }

  createAccount(userId: string, input: { name: string; email: string; isDefault?: boolean }): MailAccount {
    const first = this.accountsOf(userId).length === 0;
    const account: MailAccount = { id: randomUUID(), userId, name: input.name, email: input.email, isDefault: false, createdAt: this.clock.now() };
    this.accounts.set(account.id, account);
    // The first account is the default whatever the request says.
    if (first || input.isDefault) this.makeDefault(account);
    return account;
  }

  makeDefault(account: MailAccount): void {
    for (const other of this.accountsOf(account.userId)) other.isDefault = other.id === account.id;
  }

  /** Deleting the default account passes the flag to the oldest remaining one. */
  deleteAccount(account: MailAccount): void {
    this.accounts.delete(account.id);
    const [oldest] = this.accountsOf(account.userId);
    if (account.isDefault && oldest) this.makeDefault(oldest);
  }

  // Sessions

  sessionUser(value: string): MailUser | undefined {
    const session = this.sessions.get(value);
    return session === undefined ? undefined : this.users.get(session.userId);
  }

  createSession(userId: string): string {
    const value = `sess_${randomBytes(24).toString('hex')}`;
    this.sessions.set(value, { userId });
    return value;
  }

  /** The seeded sessions are fixtures every tool shares (CONVENTIONS §6): signing out leaves them valid. */
  endSession(value: string): void {
    if (seededSessions.some((s) => s.value === value)) return;
    this.sessions.delete(value);
  }

  /** Seeded keys are fixtures every tool shares: they cannot be revoked through the API. */
  isSeededKey(record: ApiKeyRecord): boolean {
    return record.id.startsWith('00000000-0000-4000-8000-');
  }
}
