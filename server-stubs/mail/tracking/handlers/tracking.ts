import { mailHandlers, type MailDeps } from '../../context.js';
import { iso } from '../../wire-format.js';
import { linkAt } from '../tracked-html.js';

/** A transparent 1×1 GIF. */
const pixel = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * User agents of the image proxies that fetch a message's images when it arrives, before (or
 * without) a person opening it: those opens count, flagged `machineOpen` (designed list).
 */
const imageProxies = /GoogleImageProxy|YahooMailProxy|ggpht\.com|Outlook-iOS|OutlookImageProxy|Mimecast|Barracuda/i;

/** Opens and clicks of delivered messages (the pixel and the tracked links of their HTML). */
export function trackingHandlers({ outbox, engagement, events, clock }: MailDeps) {
  /** The delivered (not sandboxed) message a token names. */
  const delivered = (messageId: string) => {
    const message = outbox.get(messageId);
    return message && !message.sandbox && message.status === 'delivered' ? message : undefined;
  };

  return mailHandlers({
    trackOpen: ({ params, req }) => {
      const message = delivered(params.token);
      if (message) {
        engagement.recordOpen(message.id);
        const userAgent = req.get('user-agent') ?? null;
        events.emit('email.opened', {
          userId: message.userId,
          messageId: message.id,
          email: message.to[0]!.email,
          openedAt: iso(clock.now())!,
          userAgent,
          ip: req.ip ?? null,
          machineOpen: userAgent !== null && imageProxies.test(userAgent),
          campaignId: message.campaignId,
        });
      }
      return { status: 200, headers: { 'Cache-Control': 'no-store' }, contentType: 'image/gif', text: pixel };
    },

    trackClick: ({ params, fail }) => {
      const [messageId, index] = params.token.split('.') as [string, string];
      const message = delivered(messageId.toLowerCase());
      const url = message && linkAt(message.html, Number(index));
      if (!message || !url) return fail(404, undefined, 'Link not found');
      engagement.recordClick(message.id);
      events.emit('email.clicked', { userId: message.userId, messageId: message.id, email: message.to[0]!.email, url, clickedAt: iso(clock.now())!, campaignId: message.campaignId });
      return { status: 302, headers: { Location: url } };
    },
  });
}
