import render from 'dom-serializer';
import { DomUtils, parseDocument } from 'htmlparser2';

/**
 * Open and click tracking of a message's HTML, as the copy that leaves the stub carries it: each
 * `http(s)` link points at `/t/click/<message id>.<n>` (n: the link's place among the message's
 * links, so the original is found again in the stored HTML), and a 1×1 image at
 * `/t/open/<message id>` is appended. The stored message keeps its HTML as the user gave it.
 */
function trackableLinks(html: string) {
  const document = parseDocument(html, { decodeEntities: true });
  const anchors = DomUtils.findAll((node) => node.name === 'a' && /^https?:\/\//i.test(node.attribs.href ?? ''), document.children);
  return { document, anchors };
}

/** The link a click token's number stands for, or undefined. */
export function linkAt(html: string | null, index: number): string | undefined {
  if (html === null) return undefined;
  return trackableLinks(html).anchors[index]?.attribs.href;
}

export function trackedHtml(html: string, messageId: string, baseUrl: string): string {
  const { document, anchors } = trackableLinks(html);
  anchors.forEach((anchor, i) => {
    anchor.attribs.href = `${baseUrl}/t/click/${messageId}.${i}`;
  });
  const pixel = `<img src="${baseUrl}/t/open/${messageId}" width="1" height="1" alt="" style="display:none">`;
  return `${render(document, { decodeEntities: false, encodeEntities: 'utf8' })}${pixel}`;
}
