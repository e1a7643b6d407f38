import { blogHandlers, type BlogDeps } from '../context.js';
import { admit, usageHeaders } from '../metering.js';
import { entry, iso } from '../store.js';

export function newsletterHandlers({ store }: BlogDeps) {
  return blogHandlers({
    addNewsletterSubscriber: ({ principal, body, fail }) => {
      const account = store.account(principal.accountId);
      const key = body.email.toLowerCase();
      const existing = entry(account.subscribers, key);
      // Subscribing an address twice changes nothing, so it is neither refused nor counted.
      if (existing) return { status: 200, headers: usageHeaders(store, account, 'newsletter_subscribers'), body: existing };
      const meter = admit(store, account, 'newsletter_subscribers', fail);
      const subscriber = { id: store.newId(), email: body.email, subscribed_at: iso(store.now()) };
      account.subscribers[key] = subscriber;
      return { status: 201, headers: meter.commit(), body: subscriber };
    },
  });
}
