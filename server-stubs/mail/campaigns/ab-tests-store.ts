import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';

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
  private readonly clock: Clock;
  private readonly tests: Collection<AbTestRecord>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.tests = state.collection('abTests.tests', { tenantOf: (t) => t.userId, createdAtOf: (t) => t.createdAt });
  }

  /** The user's tests, newest first. */
  of(userId: string): AbTestRecord[] {
    return this.tests.newest(userId);
  }

  get(userId: string, id: string): AbTestRecord | undefined {
    return this.tests.ownedBy(userId, id);
  }

  ofCampaign(campaignId: string): AbTestRecord | undefined {
    return this.tests.find((t) => t.campaignId === campaignId);
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
    return this.tests.filter((t) => t.status === 'running' && t.decideAt !== null && t.decideAt <= now);
  }

  /** A deleted campaign takes its test with it. */
  dropCampaign(campaignId: string): void {
    for (const t of this.tests.filter((t) => t.campaignId === campaignId)) this.tests.delete(t.id);
  }
}
