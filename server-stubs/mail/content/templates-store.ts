import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Collection, StateStore } from '../../lib/store.js';
import type { TemplateParts } from './render.js';

export interface TemplateRecord extends TemplateParts {
  id: string;
  userId: string;
  name: string;
  /** placeholder names, computed when the template is saved */
  variables: string[];
  createdAt: number;
  updatedAt: number;
}

/** Templates per user; none are seeded. */
export class TemplatesStore {
  private readonly clock: Clock;
  private readonly templates: Collection<TemplateRecord>;

  constructor(state: StateStore) {
    this.clock = state.clock;
    this.templates = state.collection('templates.templates', { tenantOf: (t) => t.userId, createdAtOf: (t) => t.createdAt });
  }

  /** The user's templates, newest first (of two made at the same instant, the later one). */
  of(userId: string): TemplateRecord[] {
    return this.templates.newest(userId);
  }

  get(userId: string, id: string): TemplateRecord | undefined {
    return this.templates.ownedBy(userId, id);
  }

  create(userId: string, fields: Pick<TemplateRecord, 'name' | 'subject' | 'html' | 'text' | 'variables'>): TemplateRecord {
    const at = this.clock.now();
    const record: TemplateRecord = { id: randomUUID(), userId, ...fields, createdAt: at, updatedAt: at };
    this.templates.set(record.id, record);
    return record;
  }
}
