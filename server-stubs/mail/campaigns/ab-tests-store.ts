import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';
import type { Clock } from '../../lib/clock.js';

type AbTest = components['schemas']['AbTest'];

export interface VariantRecord {
  id: string;
  name: string;
  subject: string | null;
  html: string | null;
}

export interface AbTestRecord {
  id: string;
  userId: string;
  campaignId: string;
  status: AbTest['status'];
  variants: VariantRecord[];
  testSizePercent: number;
  winnerCriteria: AbTest['winner_criteria'];
  durationHours: number;
  winnerVariantId: string | null;
  winnerSelectedAt: number | null;
  /** when a running test picks its winner automatically */
  decideAt: number | null;
  /** the recipients left out of the test group, who get the winner */
  heldBack: string[];
  createdAt: number;
}

export type NewAbTest = Pick<AbTestRecord, 'campaignId' | 'testSizePercent' | 'winnerCriteria' | 'durationHours'> & { variants: Array<Omit<VariantRecord, 'id'>> };

/** A/B tests per user, at most one per campaign. */
export class AbTestsStore {
  private tests = new Map<string, AbTestRecord>();

  constructor(private clock: Clock) {}

  reset(): void {
    this.tests.clear();
  }

  /** The user's tests, newest first. */
  of(userId: string): AbTestRecord[] {
    return [...this.tests.values()].filter((t) => t.userId === userId).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
  }

  get(userId: string, id: string): AbTestRecord | undefined {
    const record = this.tests.get(id);
    return record?.userId === userId ? record : undefined;
  }

  ofCampaign(campaignId: string): AbTestRecord | undefined {
    for (const t of this.tests.values()) if (t.campaignId === campaignId) return t;
    return undefined;
  }

  create(userId: string, fields: NewAbTest): AbTestRecord {
    const record: AbTestRecord = {
      id: randomUUID(),
      userId,
      ...fields,
      variants: fields.variants.map((v) => ({ ...v, id: randomUUID() })),
      status: 'draft',
      winnerVariantId: null,
      winnerSelectedAt: null,
      decideAt: null,
      heldBack: [],
      createdAt: this.clock.now(),
    };
    this.tests.set(record.id, record);
    return record;
  }

  /** Running tests whose measuring time is over. */
  due(): AbTestRecord[] {
    const now = this.clock.now();
    return [...this.tests.values()].filter((t) => t.status === 'running' && t.decideAt !== null && t.decideAt <= now);
  }

  /** A deleted campaign takes its test with it. */
  dropCampaign(campaignId: string): void {
    for (const [id, t] of this.tests) if (t.campaignId === campaignId) this.tests.delete(id);
  }
}
