import { randomUUID } from 'node:crypto';
import type { components } from '../../../generated/mail/types.gen.js';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';
import type { Address } from '../sending/outbox.js';

export type CampaignStatus = components['schemas']['Campaign']['status'];

export interface CampaignRecord {
  id: string;
  userId: string;
  name: string;
  subject: string;
  from: Address;
  html: string | null;
  text: string | null;
  templateId: string | null;
  segmentId: string | null;
  status: CampaignStatus;
  scheduledAt: number | null;
  /** whether the scheduled run captures its messages in the sandbox (the send request carried `X-Service-Sandbox`) */
  sandbox: boolean;
  /** contacts selected when sending started */
  recipients: number;
  sentAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export type CampaignFields = Partial<Pick<CampaignRecord, 'name' | 'subject' | 'from' | 'html' | 'text' | 'templateId' | 'segmentId'>>;

/** Which statuses a campaign may still be changed (or cancelled) in. */
export const editable: ReadonlySet<CampaignStatus> = new Set(['draft', 'scheduled']);

/** Campaigns per user. Transitions are the runs' business (`campaign-runs.ts`); this keeps the records. */
export class CampaignsStore {
  private readonly clock: Clock;
  private readonly campaigns: Collection<CampaignRecord>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.campaigns = state.collection('campaigns.campaigns', { tenantOf: (c) => c.userId, createdAtOf: (c) => c.createdAt });
  }

  /** The user's campaigns, newest first. */
  of(userId: string): CampaignRecord[] {
    return this.campaigns.newest(userId);
  }

  get(userId: string, id: string): CampaignRecord | undefined {
    return this.campaigns.ownedBy(userId, id);
  }

  create(userId: string, fields: CampaignFields & Pick<CampaignRecord, 'name' | 'subject' | 'from'>): CampaignRecord {
    const now = this.clock.now();
    const record: CampaignRecord = {
      id: randomUUID(),
      userId,
      name: fields.name,
      subject: fields.subject,
      from: { ...fields.from },
      html: fields.html ?? null,
      text: fields.text ?? null,
      templateId: fields.templateId ?? null,
      segmentId: fields.segmentId ?? null,
      status: 'draft',
      scheduledAt: null,
      sandbox: false,
      recipients: 0,
      sentAt: null,
      createdAt: now,
      updatedAt: now,
    };
    this.campaigns.set(record.id, record);
    return record;
  }

  update(record: CampaignRecord, fields: CampaignFields & { status?: CampaignStatus }): CampaignRecord {
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) (record as unknown as Record<string, unknown>)[key] = value;
    record.updatedAt = this.clock.now();
    return record;
  }

  delete(userId: string, id: string): boolean {
    if (!this.get(userId, id)) return false;
    return this.campaigns.delete(id);
  }

  /** Scheduled campaigns whose time has come, oldest schedule first. */
  due(): CampaignRecord[] {
    const now = this.clock.now();
    return this.campaigns.filter((c) => c.status === 'scheduled' && c.scheduledAt !== null && c.scheduledAt <= now).sort((a, b) => a.scheduledAt! - b.scheduledAt!);
  }
}
