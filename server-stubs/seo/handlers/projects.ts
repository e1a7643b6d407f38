import { ApiError } from '../../lib/errors.js';
import type { SeoDeps, SeoHandlers } from '../context.js';
import { limits } from '../store.js';

export const projectNotFound = () => new ApiError(404, 'NOT_FOUND', 'Project not found');

const publicProject = ({ id, name, domain }: { id: string; name: string; domain: string | null }) => ({ id, name, domain });

export function projectHandlers({ store }: SeoDeps) {
  return {
    listProjects: ({ principal }) => {
      let projects = store.activeProjects(principal.orgId);
      if (projects.length === 0) projects = [store.createProject(principal.orgId, limits.defaultProjectName, null)];
      return { status: 200, body: { projects: projects.map(publicProject) } };
    },

    createProject: ({ principal, body }) => {
      const project = store.createProject(principal.orgId, body.name.trim(), body.domain ?? null);
      return { status: 201, body: { project: publicProject(project) } };
    },

    getProject: ({ principal, params }) => {
      const project = store.project(principal.orgId, params.projectId);
      if (!project) throw projectNotFound();
      return { status: 200, body: { project: publicProject(project) } };
    },

    updateProject: ({ principal, params, body }) => {
      const project = store.project(principal.orgId, params.projectId);
      if (!project) throw projectNotFound();
      if (body.name !== undefined) project.name = body.name.trim();
      if (body.domain !== undefined) project.domain = body.domain;
      return { status: 200, body: { project: publicProject(project) } };
    },

    deleteProject: ({ principal, params }) => {
      const project = store.project(principal.orgId, params.projectId);
      if (!project) throw projectNotFound();
      // Archived, not removed: its audits, keywords and tracking history stay in the store.
      project.archived = true;
      return { status: 200, body: { success: true } };
    },
  } satisfies Partial<SeoHandlers>;
}
