import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';

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

/** Users, API keys and sessions of the mail stub; one instance per app, reset to the seeds. */
export class IdentityStore {
  private readonly users = new Map<string, MailUser>();
  private readonly keys = new Map<string, ApiKeyRecord>(); // by id
  private readonly keysByDigest = new Map<string, ApiKeyRecord>();
  private readonly sessions = new Map<string, string>(); // cookie value -> user id
  readonly accounts = new Map<string, MailAccount>();

  /** `onPlanChanged` hears of every plan change after the seeds (billing notifications, referral conversions). */
  constructor(
    readonly clock: Clock,
    private onPlanChanged: (change: { userId: string; previousPlan: Plan; plan: Plan }) => void = () => {},
  ) {
    this.reset();
  }

  reset(): void {
    for (const table of [this.users, this.keys, this.keysByDigest, this.sessions, this.accounts]) table.clear();
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
      this.keysByDigest.set(digest(seed.raw), record);
    });
    for (const s of seededSessions) this.sessions.set(s.value, s.userId);
    seededUsers.forEach((user, i) => {
      const id = `00000000-0000-4000-a000-${String(i + 1).padStart(12, '0')}`;
      this.accounts.set(id, { id, userId: user.id, name: user.name, email: user.email, isDefault: true, createdAt: this.clock.now() });
    });
  }

  user(id: string): MailUser | undefined {
    return this.users.get(id);
  }

  userByEmail(email: string): MailUser | undefined {
    return [...this.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase());
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
    this.keysByDigest.set(digest(raw), record);
    return { record, raw };
  }

  /** Any state: callers check `revokedAt` and `expiresAt`. */
  findKey(raw: string): ApiKeyRecord | undefined {
    return this.keysByDigest.get(digest(raw));
  }

  keyById(id: string): ApiKeyRecord | undefined {
    return this.keys.get(id);
  }

  isActive(record: ApiKeyRecord): boolean {
    const now = this.clock.now();
    return !record.revokedAt && (record.expiresAt == null || record.expiresAt > now);
  }

  /** Every key of the user, revoked and expired ones included, newest first. */
  keysOf(userId: string): ApiKeyRecord[] {
    return [...this.keys.values()].filter((k) => k.userId === userId).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
  }

  /** The user's keys that still work, newest first. */
  activeKeys(userId: string, kind?: ApiKeyRecord['kind']): ApiKeyRecord[] {
    return [...this.keys.values()]
      .filter((k) => k.userId === userId && this.isActive(k) && (!kind || k.kind === kind))
      .sort((a, b) => b.createdAt - a.createdAt);
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
    return [...this.accounts.values()].filter((a) => a.userId === userId).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  account(userId: string, id: string): MailAccount | undefined {
    const account = this.accounts.get(id);
    return account?.userId === userId ? account : undefined;
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
    const userId = this.sessions.get(value);
    return userId === undefined ? undefined : this.users.get(userId);
  }

  createSession(userId: string): string {
    const value = `sess_${randomBytes(24).toString('hex')}`;
    this.sessions.set(value, userId);
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
