/** The breaking-change list the build prints: each kind of break is found, and nothing else is. */
import { describe, expect, test } from 'vitest';
import { breakingChanges } from '../../scripts/lib/breaking.js';
import { loadContract } from '../../server-stubs/lib/contract.js';

const base = loadContract('seo').document;
const edit = (mutate: (doc: Record<string, any>) => void) => {
  const doc = structuredClone(base);
  mutate(doc);
  return breakingChanges(base, doc);
};

describe('breaking changes', () => {
  test('an unchanged contract has none', () => {
    expect(breakingChanges(base, structuredClone(base))).toEqual([]);
  });

  test('additions that old clients never see are not breaking', () => {
    expect(
      edit((doc) => {
        doc.components.schemas.Project.properties.createdAt = { type: 'string' };
        doc.paths['/projects'].get.responses['418'] = { description: 'teapot' };
      }),
    ).toEqual([]);
  });

  test('wrapping a response schema in allOf to add a rule is not breaking', () => {
    expect(
      edit((doc) => {
        const response = doc.components.schemas.ProjectResponse;
        response.properties.project = { allOf: [response.properties.project, { type: 'object', required: ['domain'] }] };
      }),
    ).toEqual([]);
  });

  test('a field removed inside an allOf member is found', () => {
    expect(
      edit((doc) => {
        const response = doc.components.schemas.ProjectResponse;
        const project = structuredClone(doc.components.schemas.Project);
        delete project.properties.name;
        project.required = project.required.filter((n: string) => n !== 'name');
        response.properties.project = { allOf: [project, { type: 'object' }] };
      }),
    ).toContainEqual({ where: 'GET /projects/{projectId}', change: 'response 200: project.name was removed' });
  });

  test.each([
    ['a removed operation', (doc: any): void => {
      delete doc.paths['/projects'].post;
    }, 'POST /projects', 'operation removed'],
    ['a newly required body field', (doc: any): void => {
      doc.components.schemas.CreateProjectRequest.required.push('domain');
    }, 'POST /projects', 'request domain is now required'],
    ['a newly required query parameter', (doc: any): void => {
      doc.components.parameters.Page.required = true;
    }, 'GET /rank-tracking/keywords', 'query parameter page is now required'],
    ['a request enum value removed', (doc: any): void => {
      (doc.components.schemas.CreateRankTrackingConfigRequest.properties.devices.enum = ['desktop', 'mobile']);
    }, 'POST /rank-tracking/configs', 'request devices no longer accepts "both"'],
    ['a tighter request limit', (doc: any): void => {
      (doc.components.schemas.AddTrackedKeywordsRequest.properties.keywords.maxItems = 50);
    }, 'POST /rank-tracking/keywords', 'request keywords maxItems tightened to 50'],
    ['a response field removed', (doc: any): void => {
      delete doc.components.schemas.Project.properties.domain;
    }, 'GET /projects', 'response 200: projects[].domain was removed'],
    ['a response enum value added', (doc: any): void => {
      doc.components.schemas.AuditStatus.properties.status.enum.push('paused');
    }, 'GET /crawl/{jobId}/status', 'response 200: status.status may now be "paused"'],
    ['a success response removed', (doc: any): void => {
      delete doc.paths['/crawl/start'].post.responses['202'];
    }, 'POST /crawl/start', 'response 202 removed'],
  ] as const)('finds %s', (_name, mutate, where, change) => {
    expect(edit(mutate)).toContainEqual({ where, change });
  });
});
