import type { Fail } from '../../lib/handlers.js';
import { seoHandlers, type SeoDeps } from '../context.js';
import { limits, type SeoStore } from '../store.js';

/** The organization's project, not archived; 404 otherwise. */
export function requireProject(store: SeoStore, fail: Fail<404>, orgId: string, projectId: string) {
  return store.project(orgId, projectId) ?? fail(404, 'NOT_FOUND', 'Project not found');
}

const publicProject = ({ id, name, domain }: { id: string; name: string; domain: string | null }) => ({ id, name, domain });

export function projectHandlers({ store }: SeoDeps) {
  return seoHandlers({
    listProjects: ({ principal }) => {
      let projects = store.activeProjects(principal.orgId);
      if (projects.length === 0) projects = [store.createProject(principal.orgId, limits.defaultProjectName, null)];
      return { status: 200, body: { projects: projects.map(publicProject) } };
    },

    createProject: ({ principal, body }) => {
      const project = store.createProject(principal.orgId, body.name.trim(), body.domain ?? null);
      return { status: 201, body: { project: publicProject(project) } };
    },

    getProject: ({ principal, params, fail }) => {
      const project = requireProject(store, fail, principal.orgId, params.projectId);
      return { status: 200, body: { project: publicProject(project) } };
    },

    updateProject: ({ principal, params, body, fail }) => {
      const project = requireProject(store, fail, principal.orgId, params.projectId);
      if (body.name !== undefined) project.name = body.name.trim();
      if (body.domain !== undefined) project.domain = body.domain;
      return { status: 200, body: { project: publicProject(project) } };
    },

    deleteProject: ({ principal, params, fail }) => {
      const project = requireProject(store, fail, principal.orgId, params.projectId);
      // Archived, not removed: its audits, keywords and tracking history stay in the store.
      project.archived = true;
      return { status: 200, body: { success: true } };
    },
  });
}
