import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso, pageOf } from '../../wire-format.js';
import type { ContactRecord } from '../contacts-store.js';
import { criteriaProblems, evaluate, type FilterGroup } from '../segment-filter.js';
import type { SegmentRecord } from '../segments-store.js';
import { invalidRequest } from '../../../lib/failures.js';

type Segment = components['schemas']['Segment'];
type SampleContact = components['schemas']['SampleContact'];

const sampleSize = 5;

function shown(s: SegmentRecord): Segment {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    segment_type: s.type,
    contact_count: s.contactCount,
    last_calculated_at: iso(s.lastCalculatedAt)!,
    filter_criteria: s.criteria,
    created_at: iso(s.createdAt)!,
    updated_at: iso(s.updatedAt)!,
  };
}

function sample(c: ContactRecord): SampleContact {
  return { id: c.id, email: c.email, first_name: c.firstName, last_name: c.lastName, status: c.status, engagement_tier: c.engagementTier };
}

/** Criteria the schema admits but the engine cannot evaluate are a validation failure naming the rule path. */
function checked(criteria: FilterGroup, fail: Fail<400>): FilterGroup {
  const problems = criteriaProblems(criteria);
  if (Object.keys(problems).length > 0) invalidRequest({ fieldErrors: problems });
  return criteria;
}

const centralReadOnly = 'Segment is managed by the central contacts platform';

/** Segments: dashboard CRUD, preview, refresh, static members, and the API-key members route. */
export function segmentHandlers({ segments, contacts, events }: MailDeps) {
  // Membership rows follow the contacts: a deleted contact leaves every segment at once.
  events.on('contact.deleted', ({ userId, contactId }) => segments.dropContact(userId, contactId));

  const find = (userId: string, id: string, fail: Fail<404>) => segments.get(userId, id) ?? fail(404, undefined, 'Segment not found');

  /** Only static segments of the user's own are managed by hand. */
  const manual = (userId: string, id: string, fail: Fail<404 | 409>) => {
    const record = find(userId, id, fail);
    if (record.source === 'central') fail(409, undefined, centralReadOnly);
    if (record.type === 'dynamic') fail(409, undefined, 'Members of a dynamic segment follow its filter criteria; refresh it instead');
    return record;
  };

  return mailHandlers({
    listSegments: ({ principal, query }) => ({
      status: 200,
      body: { success: true, ...pageOf(segments.of(principal.userId).map(shown), query.page, query.limit) },
    }),

    createSegment: ({ principal, body, fail }) => {
      const record = segments.create(principal.userId, {
        name: body.name,
        description: body.description ?? null,
        type: body.segment_type,
        criteria: checked(body.filter_criteria, fail),
      });
      return { status: 201, body: { success: true, data: shown(record) } };
    },

    getSegment: ({ principal, params, fail }) => {
      const record = find(principal.userId, params.id, fail);
      return { status: 200, body: { success: true, data: { ...shown(record), membership_count: record.members.length } } };
    },

    updateSegment: ({ principal, params, body, fail }) => {
      const record = find(principal.userId, params.id, fail);
      if (record.source === 'central') fail(409, undefined, centralReadOnly);
      const criteria = body.filter_criteria === undefined ? undefined : checked(body.filter_criteria, fail);
      segments.update(record, { name: body.name, description: body.description, criteria });
      return { status: 200, body: { success: true, data: shown(record) } };
    },

    deleteSegment: ({ principal, params, fail }) => {
      const record = find(principal.userId, params.id, fail);
      if (record.source === 'central') fail(409, undefined, centralReadOnly);
      segments.delete(principal.userId, record.id);
      return { status: 200, body: { success: true } };
    },

    // The path id is ignored by design (`new` for an unsaved segment), and nothing is stored.
    previewSegment: ({ principal, body, fail }) => {
      const matched = evaluate(checked(body.filter_criteria, fail), contacts.of(principal.userId));
      return { status: 200, body: { success: true, data: { count: matched.length, sampleContacts: matched.slice(0, sampleSize).map(sample) } } };
    },

    refreshSegment: ({ principal, params, fail }) => {
      const record = find(principal.userId, params.id, fail);
      if (!record.criteria) fail(422, undefined, 'Segment has no filter criteria');
      segments.refresh(record);
      return { status: 200, body: { success: true, data: { segment_id: record.id, contact_count: record.contactCount, last_calculated_at: iso(record.lastCalculatedAt)! } } };
    },

    addSegmentMembers: ({ principal, params, body, fail }) => {
      const record = manual(principal.userId, params.id, fail);
      const { changed, notFound } = segments.addMembers(record, body.contact_ids);
      return { status: 200, body: { success: true, data: { segment_id: record.id, added: changed, not_found: notFound, membership_count: record.members.length } } };
    },

    removeSegmentMembers: ({ principal, params, body, fail }) => {
      const record = manual(principal.userId, params.id, fail);
      const { changed, notFound } = segments.removeMembers(record, body.contact_ids);
      return { status: 200, body: { success: true, data: { segment_id: record.id, removed: changed, not_found: notFound, membership_count: record.members.length } } };
    },

    listSegmentMembers: ({ principal, params, query, fail }) => {
      const record = find(principal.userId, params.id, fail);
      const page = pageOf([...record.members], query.page, query.limit);
      return { status: 200, body: { success: true, data: { segment_id: record.id, contact_ids: page.data }, pagination: page.pagination } };
    },
  });
}
