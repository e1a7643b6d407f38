import type { components } from '../../../../generated/mail/types.gen.js';
import type { Fail } from '../../../lib/handlers.js';
import { mailHandlers, type MailDeps } from '../../context.js';
import { iso } from '../../wire-format.js';
import type { FormAEndpoint, FormBAttempt, FormBEndpoint, WebhooksStore } from '../webhooks-store.js';
import { loopbackHint } from '../../../lib/net-guard.js';
import { invalidRequest } from '../../../lib/failures.js';

type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
type WebhookDelivery = components['schemas']['WebhookDelivery'];
type DashboardWebhook = components['schemas']['DashboardWebhook'];

function shownB(e: FormBEndpoint): WebhookEndpoint {
  return { id: e.id, url: e.url, events: [...e.events], secret: e.secret, enabled: e.enabled, created_at: iso(e.createdAt)!, updated_at: iso(e.updatedAt)! };
}

function shownAttempt(a: FormBAttempt): WebhookDelivery {
  return {
    id: a.id,
    webhook_id: a.webhookId,
    event_id: a.eventId,
    event_type: a.eventType,
    attempt: a.attempt,
    status: a.status,
    response_status_code: a.outcome.statusCode,
    response_body: a.outcome.responseBody,
    duration_ms: a.outcome.durationMs,
    attempted_at: iso(a.attemptedAt)!,
    next_retry_at: iso(a.nextRetryAt),
  };
}

function shownA(e: FormAEndpoint): DashboardWebhook {
  return {
    id: e.id,
    url: e.url,
    events: [...e.events],
    secret: e.secret,
    enabled: e.enabled,
    consecutive_failures: e.consecutiveFailures,
    disabled_at: iso(e.disabledAt),
    last_attempt_at: iso(e.lastAttemptAt),
    last_status_code: e.lastStatusCode,
    created_at: iso(e.createdAt)!,
    updated_at: iso(e.updatedAt)!,
  };
}

/** A URL the SSRF guard would refuse by its address alone is refused when it is set. */
function refuseBlockedUrl(url: string | undefined, webhooks: WebhooksStore, fail: Fail<400>): void {
  if (url !== undefined && webhooks.engine.refusesUrl(url)) {
    invalidRequest({ fieldErrors: { url: [`URL points at an address webhooks may not reach${loopbackHint(url)}`] } });
  }
}

/** Webhook endpoints: Form B (`/v1/webhooks`) and Form A (dashboard), delivered from the event bus. */
export function webhookHandlers({ webhooks, events, delivery, contacts, outbox, campaigns }: MailDeps) {
  webhooks.connect({ events, contacts, outbox, campaigns, track: (work) => delivery.track(work) });

  return mailHandlers({
    listWebhooks: ({ principal }) => ({ status: 200, body: { success: true, data: webhooks.formBOf(principal.userId).map(shownB) } }),

    createWebhook: ({ principal, body, fail }) => {
      refuseBlockedUrl(body.url, webhooks, fail);
      const endpoint = webhooks.createFormB(principal.userId, { url: body.url, events: body.events, secret: body.secret });
      return { status: 201, body: { success: true, data: shownB(endpoint) } };
    },

    updateWebhook: ({ principal, params, body, fail }) => {
      const endpoint = webhooks.getFormB(principal.userId, params.id) ?? fail(404, undefined, 'Webhook not found');
      refuseBlockedUrl(body.url, webhooks, fail);
      webhooks.updateFormB(endpoint, { url: body.url, events: body.events, secret: body.secret, enabled: body.enabled });
      return { status: 200, body: { success: true, data: shownB(endpoint) } };
    },

    deleteWebhook: ({ principal, params, fail }) => {
      if (!webhooks.deleteFormB(principal.userId, params.id)) fail(404, undefined, 'Webhook not found');
      return { status: 200, body: { success: true } };
    },

    listWebhookDeliveries: ({ principal, params, fail }) => {
      const endpoint = webhooks.getFormB(principal.userId, params.id) ?? fail(404, undefined, 'Webhook not found');
      return { status: 200, body: { success: true, data: webhooks.attemptsOf(endpoint.id).map(shownAttempt) } };
    },

    listDashboardWebhooks: ({ principal }) => ({ status: 200, body: { success: true, data: webhooks.formAOf(principal.userId).map(shownA) } }),

    createDashboardWebhook: ({ principal, body, fail }) => {
      refuseBlockedUrl(body.url, webhooks, fail);
      const endpoint = webhooks.createFormA(principal.userId, { url: body.url, events: body.events, secret: body.secret ?? null });
      return { status: 201, body: { success: true, data: shownA(endpoint) } };
    },

    updateDashboardWebhook: ({ principal, params, body, fail }) => {
      const endpoint = webhooks.getFormA(principal.userId, params.id) ?? fail(404, undefined, 'Webhook not found');
      refuseBlockedUrl(body.url, webhooks, fail);
      webhooks.updateFormA(endpoint, { url: body.url, events: body.events, secret: body.secret });
      return { status: 200, body: { success: true, data: shownA(endpoint) } };
    },

    deleteDashboardWebhook: ({ principal, params, fail }) => {
      if (!webhooks.deleteFormA(principal.userId, params.id)) fail(404, undefined, 'Webhook not found');
      return { status: 200, body: { success: true } };
    },

    enableDashboardWebhook: ({ principal, params, fail }) => {
      const endpoint = webhooks.getFormA(principal.userId, params.id) ?? fail(404, undefined, 'Webhook not found');
      return { status: 200, body: { success: true, data: shownA(webhooks.enableFormA(endpoint)) } };
    },
  });
}
