/**
 * The mail stub's event bus: parts announce what happened (a contact created, an import done) and
 * later parts (webhooks, automations, in-app notifications) subscribe. Nobody consumes yet; the
 * emitters are in place so those parts only add listeners.
 */
export interface MailEvents {
  'contact.created': { userId: string; contactId: string };
  'contact.updated': { userId: string; contactId: string };
  'contact.unsubscribed': { userId: string; contactId: string };
  'contact.deleted': { userId: string; contactId: string };
  'contact.imported': { userId: string; importId: string; created: number; updated: number; skipped: number; failed: number };
}

export type MailEventName = keyof MailEvents;
type Listener<E extends MailEventName> = (payload: MailEvents[E]) => void;

export class MailEventBus {
  private listeners = new Map<MailEventName, Set<Listener<any>>>();

  on<E extends MailEventName>(event: E, listener: Listener<E>): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener);
    this.listeners.set(event, set);
    return () => set.delete(listener);
  }

  emit<E extends MailEventName>(event: E, payload: MailEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(payload);
  }
}
