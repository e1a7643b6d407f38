import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso, pageOf } from '../../wire-format.js';
import type { AutomationRecord, AutomationStep } from '../automations-store.js';

type Automation = components['schemas']['Automation'];

const shown = (a: AutomationRecord): Automation => ({
  id: a.id,
  name: a.name,
  trigger: a.trigger,
  steps: a.steps,
  status: a.status,
  created_at: iso(a.createdAt)!,
  updated_at: iso(a.updatedAt)!,
});

const needsSteps = 'Automation needs at least one step to be active';

/** Automations: CRUD and the draft → active ⇄ paused moves; `AutomationRuns` runs them. */
export function automationHandlers({ automations, automationRuns, templates, events }: MailDeps) {
  /** Every template a `send_email` step names must be the user's. */
  const checkTemplates = (userId: string, steps: AutomationStep[], fail: Fail<404>) => {
    for (const step of steps) if (step.type === 'send_email' && !templates.get(userId, step.template_id)) fail(404, undefined, 'Template not found');
  };

  const announce = (a: AutomationRecord) => {
    if (a.status === 'draft') return;
    if (a.status === 'active') automationRuns.activated(a);
    events.emit('automation.status_changed', { userId: a.userId, automationId: a.id, status: a.status });
  };

  return mailHandlers({
    listAutomations: ({ principal, query }) => {
      const listed = automations.of(principal.userId).filter((a) => query.status === undefined || a.status === query.status);
      return { status: 200, body: { success: true, ...pageOf(listed.map(shown), query.page, query.limit) } };
    },

    createAutomation: ({ principal, body, fail }) => {
      const steps = body.steps ?? [];
      checkTemplates(principal.userId, steps, fail);
      const status = body.status ?? 'draft';
      if (status === 'active' && steps.length === 0) fail(422, undefined, needsSteps);
      const record = automations.create(principal.userId, { name: body.name, trigger: body.trigger, steps, status });
      announce(record);
      return { status: 201, body: { success: true, data: shown(record) } };
    },

    updateAutomation: ({ principal, query, body, fail }) => {
      const record = automations.get(principal.userId, query.id) ?? fail(404, undefined, 'Automation not found');
      if (body.steps) checkTemplates(principal.userId, body.steps, fail);
      const status = body.status ?? record.status;
      if (body.status === 'paused' && record.status !== 'active' && record.status !== 'paused') fail(422, undefined, 'Only an active automation can be paused');
      if (status === 'active' && (body.steps ?? record.steps).length === 0) fail(422, undefined, needsSteps);
      const moved = body.status !== undefined && body.status !== record.status;
      automations.update(record, { name: body.name, trigger: body.trigger, steps: body.steps, status: body.status });
      if (moved) announce(record);
      return { status: 200, body: { success: true, data: shown(record) } };
    },
  });
}
