/**
 * The segments part of the mail scenario: Segments (dashboard CRUD, preview, refresh, static members,
 * the members route), with the refusals their handlers decide: unknown ids, criteria the engine
 * cannot evaluate, the central contacts platform's read-only segment (409 on changes, 422 on
 * refresh), member changes of a dynamic segment, and scopes on the API-key members route.
 */
import assert from 'node:assert/strict';
import { sendOnly, unknownId, type MailFixture, type MailScenarioPart } from './mail-fixture.js';
import { outcomeOf, required, ScenarioSetupError } from './scenario.js';


/** Unique per run, so a scenario against a long-running stub only ever sees its own contacts and segments. */
const runTag = () => `seg-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

const byTag = (tag: string) => ({ operator: 'AND' as const, rules: [{ field: 'tags', operator: 'contains' as const, value: tag }] });
const unfit = { operator: 'AND' as const, rules: [{ field: 'status', operator: 'in' as const, value: 'subscribed' }] };

async function newSegment(f: MailFixture, type: 'dynamic' | 'static', name: string) {
  const body = { name, segment_type: type, filter_criteria: byTag(f.made.segmentTag!) };
  return required(`create the ${type} segment "${name}"`, await f.dashboard.POST('/api/segments', { body }), 201).data.id;
}

const idPath = (id: string) => ({ params: { path: { id } } });

export const segmentsPart: MailScenarioPart = {
  async setup(f) {
    const tag = runTag();
    f.made.segmentTag = tag;
    for (const label of ['first', 'second']) {
      const email = `${label}.${tag}@example.com`;
      f.made[`segmentContact_${label}`] = required(`create the contact "${email}"`, await f.api.POST('/v1/contacts', { body: { email, tags: [tag] } }), 201).data.id;
    }
    f.made.dynamicSegment = await newSegment(f, 'dynamic', `Scenario dynamic ${tag}`);
    f.made.staticSegment = await newSegment(f, 'static', `Scenario static ${tag}`);
    const listed = required('list the segments', await f.dashboard.GET('/api/segments', { params: { query: { limit: 100 } } }), 200);
    const central = listed.data.find((s) => s.filter_criteria === null);
    if (!central) throw new ScenarioSetupError('the central contacts platform segment of the Max user (DECISIONS mail-5) is not listed');
    f.made.centralSegment = central.id;
  },

  calls: {
    listSegments: async ({ dashboard }) => outcomeOf(await dashboard.GET('/api/segments', { params: { query: { limit: 100 } } })),
    createSegment: async ({ dashboard, made }) =>
      outcomeOf(await dashboard.POST('/api/segments', { body: { name: `Created ${made.segmentTag}`, description: 'scenario', segment_type: 'dynamic', filter_criteria: byTag(made.segmentTag!) } })),
    getSegment: async ({ dashboard, made }) => outcomeOf(await dashboard.GET('/api/segments/{id}', idPath(made.dynamicSegment!))),
    updateSegment: async ({ dashboard, made }) => outcomeOf(await dashboard.PATCH('/api/segments/{id}', { ...idPath(made.dynamicSegment!), body: { description: null, filter_criteria: byTag(made.segmentTag!) } })),
    deleteSegment: async (f) => outcomeOf(await f.dashboard.DELETE('/api/segments/{id}', idPath(await newSegment(f, 'static', `To delete ${f.made.segmentTag}`)))),
    previewSegment: async ({ dashboard, made }) => outcomeOf(await dashboard.POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: { filter_criteria: byTag(made.segmentTag!) } })),
    refreshSegment: async ({ dashboard, made }) => outcomeOf(await dashboard.POST('/api/segments/{id}/refresh', idPath(made.dynamicSegment!))),
    listSegmentMembers: async ({ api, made }) => outcomeOf(await api.GET('/v1/segments/{id}/members', { params: { path: { id: made.dynamicSegment! }, query: { limit: 500 } } })),
    addSegmentMembers: async ({ dashboard, made }) =>
      outcomeOf(await dashboard.POST('/api/segments/{id}/members', { ...idPath(made.staticSegment!), body: { contact_ids: [made.segmentContact_first!, unknownId] } })),
    removeSegmentMembers: async ({ dashboard, made }) =>
      outcomeOf(await dashboard.DELETE('/api/segments/{id}/members', { ...idPath(made.staticSegment!), body: { contact_ids: [made.segmentContact_second!] } })),
  },

  expectations: {
    listSegments: (b, f) => {
      const listed = (id: string | undefined) => b.data.some((s) => s.id === id);
      assert.ok(listed(f.made.centralSegment) && listed(f.made.dynamicSegment), 'the list merges the central segment with own segments');
    },
    createSegment: (b) => assert.deepEqual({ type: b.data.segment_type, count: b.data.contact_count }, { type: 'dynamic', count: 2 }, 'evaluated at once over the two tagged contacts'),
    getSegment: (b, f) => assert.deepEqual({ id: b.data.id, count: b.data.contact_count, members: b.data.membership_count }, { id: f.made.dynamicSegment, count: 2, members: 2 }),
    updateSegment: (b) => assert.deepEqual({ description: b.data.description, count: b.data.contact_count }, { description: null, count: 2 }),
    deleteSegment: (b) => assert.deepEqual(b, { success: true }),
    previewSegment: (b, f) =>
      assert.deepEqual(
        b.data.sampleContacts.map((c: { id: string }) => c.id).sort(),
        [f.made.segmentContact_first, f.made.segmentContact_second].sort(),
        'the preview samples the two tagged contacts',
      ),
    refreshSegment: (b, f) => assert.deepEqual({ id: b.data.segment_id, count: b.data.contact_count }, { id: f.made.dynamicSegment, count: 2 }),
    listSegmentMembers: (b, f) => assert.deepEqual([...b.data.contact_ids].sort(), [f.made.segmentContact_first, f.made.segmentContact_second].sort()),
    addSegmentMembers: (b) => assert.deepEqual({ added: b.data.added, notFound: b.data.not_found }, { added: 0, notFound: [unknownId] }, 'already a member; the unknown id is reported'),
    removeSegmentMembers: (b) => assert.equal(b.data.removed, 1),
  },

  refusals: [
    { id: 'listSegments', status: 400, why: 'a page size over 100', call: async (f) => outcomeOf(await f.dashboard.GET('/api/segments', { params: { query: { limit: 101 } } })) },
    {
      id: 'createSegment',
      status: 400,
      why: 'a rule whose value cannot fit its operator (in without a list)',
      call: async (f) => outcomeOf(await f.dashboard.POST('/api/segments', { body: { name: 'Unfit', segment_type: 'dynamic', filter_criteria: unfit } })),
    },
    { id: 'getSegment', status: 404, why: 'no segment with that id', call: async (f) => outcomeOf(await f.dashboard.GET('/api/segments/{id}', idPath(unknownId))) },
    { id: 'getSegment', status: 400, why: 'an id that is not a UUID', call: async (f) => outcomeOf(await f.dashboard.GET('/api/segments/{id}', idPath('not-a-uuid'))) },
    {
      id: 'updateSegment',
      status: 400,
      why: 'segment_type cannot change',
      call: async (f) => outcomeOf(await f.dashboard.PATCH('/api/segments/{id}', { ...idPath(f.made.dynamicSegment!), body: { segment_type: 'static' } as never })),
    },
    { id: 'updateSegment', status: 404, why: 'no segment with that id', call: async (f) => outcomeOf(await f.dashboard.PATCH('/api/segments/{id}', { ...idPath(unknownId), body: { name: 'Nobody' } })) },
    {
      id: 'updateSegment',
      status: 409,
      why: 'the central contacts platform segment is read-only here',
      call: async (f) => outcomeOf(await f.dashboard.PATCH('/api/segments/{id}', { ...idPath(f.made.centralSegment!), body: { name: 'Mine now' } })),
    },
    { id: 'deleteSegment', status: 400, why: 'an id that is not a UUID', call: async (f) => outcomeOf(await f.dashboard.DELETE('/api/segments/{id}', idPath('not-a-uuid'))) },
    { id: 'deleteSegment', status: 404, why: 'no segment with that id', call: async (f) => outcomeOf(await f.dashboard.DELETE('/api/segments/{id}', idPath(unknownId))) },
    { id: 'deleteSegment', status: 409, why: 'the central contacts platform segment is read-only here', call: async (f) => outcomeOf(await f.dashboard.DELETE('/api/segments/{id}', idPath(f.made.centralSegment!))) },
    {
      id: 'previewSegment',
      status: 400,
      why: 'a rule whose value cannot fit its operator (in without a list)',
      call: async (f) => outcomeOf(await f.dashboard.POST('/api/segments/{id}/preview', { params: { path: { id: 'new' } }, body: { filter_criteria: unfit } })),
    },
    { id: 'refreshSegment', status: 400, why: 'an id that is not a UUID', call: async (f) => outcomeOf(await f.dashboard.POST('/api/segments/{id}/refresh', idPath('not-a-uuid'))) },
    { id: 'refreshSegment', status: 404, why: 'no segment with that id', call: async (f) => outcomeOf(await f.dashboard.POST('/api/segments/{id}/refresh', idPath(unknownId))) },
    { id: 'refreshSegment', status: 422, why: 'the central segment has no filter criteria', call: async (f) => outcomeOf(await f.dashboard.POST('/api/segments/{id}/refresh', idPath(f.made.centralSegment!))) },
    {
      id: 'listSegmentMembers',
      status: 400,
      why: 'a page size over 500',
      call: async (f) => outcomeOf(await f.api.GET('/v1/segments/{id}/members', { params: { path: { id: f.made.dynamicSegment! }, query: { limit: 501 } } })),
    },
    { id: 'listSegmentMembers', status: 403, why: 'a token without the read, segments or contacts scope', call: async (f) => outcomeOf(await sendOnly(f).GET('/v1/segments/{id}/members', idPath(f.made.dynamicSegment!))) },
    { id: 'listSegmentMembers', status: 404, why: 'no segment with that id', call: async (f) => outcomeOf(await f.api.GET('/v1/segments/{id}/members', idPath(unknownId))) },
    { id: 'addSegmentMembers', status: 400, why: 'no contact ids', call: async (f) => outcomeOf(await f.dashboard.POST('/api/segments/{id}/members', { ...idPath(f.made.staticSegment!), body: { contact_ids: [] } })) },
    { id: 'addSegmentMembers', status: 404, why: 'no segment with that id', call: async (f) => outcomeOf(await f.dashboard.POST('/api/segments/{id}/members', { ...idPath(unknownId), body: { contact_ids: [unknownId] } })) },
    {
      id: 'addSegmentMembers',
      status: 409,
      why: 'a dynamic segment follows its criteria',
      call: async (f) => outcomeOf(await f.dashboard.POST('/api/segments/{id}/members', { ...idPath(f.made.dynamicSegment!), body: { contact_ids: [f.made.segmentContact_first!] } })),
    },
    {
      id: 'removeSegmentMembers',
      status: 400,
      why: 'an id that is not a UUID',
      call: async (f) => outcomeOf(await f.dashboard.DELETE('/api/segments/{id}/members', { ...idPath(f.made.staticSegment!), body: { contact_ids: ['not-a-uuid'] } })),
    },
    { id: 'removeSegmentMembers', status: 404, why: 'no segment with that id', call: async (f) => outcomeOf(await f.dashboard.DELETE('/api/segments/{id}/members', { ...idPath(unknownId), body: { contact_ids: [unknownId] } })) },
    {
      id: 'removeSegmentMembers',
      status: 409,
      why: 'the central contacts platform segment is read-only here',
      call: async (f) => outcomeOf(await f.dashboard.DELETE('/api/segments/{id}/members', { ...idPath(f.made.centralSegment!), body: { contact_ids: [unknownId] } })),
    },
  ],
};
