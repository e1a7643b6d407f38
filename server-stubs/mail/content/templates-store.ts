import { randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
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
  private templates = new Map<string, TemplateRecord>();

  constructor(private clock: Clock) {
    this.reset();
  }

  reset(): void {
    this.templates.clear();
  }

  /** The user's templates, newest first (of two made at the same instant, the later one). */
  of(userId: string): TemplateRecord[] {
    return [...this.templates.values()].reverse().filter((t) => t.userId === userId).sort((a, b) => b.createdAt - a.createdAt);
  }

  get(userId: string, id: string): TemplateRecord | undefined {
    const record = this.templates.get(id);
    return record?.userId === userId ? record : undefined;
  }

  create(userId: string, fields: Pick<TemplateRecord, 'name' | 'subject' | 'html' | 'text' | 'variables'>): TemplateRecord {
    const at = this.clock.now();
    const record: TemplateRecord = { id: randomUUID(), userId, ...fields, createdAt: at, updatedAt: at };
    this.templates.set(record.id, record);
    return record;
  }
}
