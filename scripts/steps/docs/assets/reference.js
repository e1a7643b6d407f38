/*
 * Renders a service's reference with Redoc (the page's #reference-spec) and adds the console's
 * buttons once it is drawn. Redoc 2 draws every operation at once and has no lazy rendering
 * (Redoc 1's `lazyRendering` is gone): mail's 127 operations took 4-5 s before the page answered a
 * click. A large reference is therefore drawn one tag at a time: the tag the address names (or the
 * first) in full, every other operation as its heading only, so the sidebar, the search and the
 * headings still list them all. Opening one of those (sidebar, link, address) loads the page again
 * on it: Redoc cannot draw into a container twice, and a second Redoc beside an orphaned one would
 * fight it over the address as the page scrolls. `?whole` draws everything at once (to search the
 * page with the browser's find, to print it).
 */
/* global Redoc -- defined by redoc.standalone.js, loaded before this script */
(function () {
  'use strict';
  const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

  /** Every operation of `paths` or `webhooks`: where it is, its id and its tags. */
  function operations(spec) {
    const list = [];
    for (const where of ['paths', 'webhooks']) {
      for (const [key, item] of Object.entries(spec[where] || {})) {
        for (const method of METHODS) {
          const op = item && item[method];
          if (op && typeof op === 'object') list.push({ where, key, method, id: op.operationId, tags: op.tags || [] });
        }
      }
    }
    return list;
  }

  /** Redoc's ids of tags (`tag/DMARC-monitoring`), compared loosely: they are slugs of the names. */
  const loose = (text) => decodeURIComponent(text).toLowerCase().replace(/[^a-z0-9]+/g, '');

  /** The tag an address (`#tag/Templates/operation/renderTemplate`, `#operation/x`, `#tag/AI`) is about. */
  function tagOf(hash, ops, tags) {
    const operation = /operation\/([^/]+)/.exec(hash);
    if (operation) {
      const op = ops.find((o) => o.id === decodeURIComponent(operation[1]));
      if (op) return op.tags[0] || '';
    }
    const tag = /^#tag\/([^/]+)/.exec(hash);
    if (tag) {
      const found = tags.find((t) => loose(t) === loose(tag[1]));
      if (found !== undefined) return found;
    }
    return tags[0] || '';
  }

  /** The reference with the operations outside `tag` cut to their headings (untagged ones are always whole). */
  function viewOf(spec, ops, tag) {
    const view = Object.assign({}, spec);
    for (const where of ['paths', 'webhooks']) {
      if (!spec[where]) continue;
      view[where] = {};
      for (const [key, item] of Object.entries(spec[where])) {
        const copy = Object.assign({}, item);
        let whole = false;
        for (const op of ops.filter((o) => o.where === where && o.key === key)) {
          if (op.tags.length === 0 || op.tags.includes(tag)) whole = true;
          else copy[op.method] = heading(item[op.method]);
        }
        // The path's own parameters would be drawn under every heading.
        if (!whole) delete copy.parameters;
        view[where][key] = copy;
      }
    }
    return view;
  }

  /**
   * An operation outside the drawn tag, cut to its heading. What it omits is said once, in the
   * introduction ({@link withCutNote}), not under each heading: a description of its own under each
   * of mail's 120 headings was an eighth of the page's elements.
   */
  function heading(op) {
    const cut = {
      summary: op.summary,
      operationId: op.operationId,
      tags: op.tags,
      deprecated: op.deprecated,
      'x-badges': op['x-badges'],
      // Drawn with the operation once opened; here they would only add to what is drawn (the servers
      // menu alone was a dozen elements under each heading).
      security: [],
      servers: [],
      responses: {},
    };
    for (const key of Object.keys(cut)) if (cut[key] === undefined) delete cut[key];
    return cut;
  }

  /**
   * The view with only the components its drawn parts reach: Redoc walks the whole document before
   * it draws (resolving every reference), and mail's 205 schemas cost it most of a second.
   * Security schemes are named, not referenced, and are all kept.
   */
  function withReachedComponents(view) {
    const kept = new Set();
    const queue = [];
    const unescape = (token) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
    const reach = (ref) => {
      const tokens = ref.split('/');
      if (tokens[0] !== '#' || tokens[1] !== 'components' || tokens.length < 4) return;
      const key = `${unescape(tokens[2])}\u0000${unescape(tokens[3])}`;
      if (kept.has(key)) return;
      kept.add(key);
      queue.push([unescape(tokens[2]), unescape(tokens[3])]);
    };
    const scan = (node, key) => {
      if (typeof node === 'string') {
        // A discriminator's mapping names schemas by reference in plain strings.
        if (key === '$ref' || key === 'mapping') reach(node);
      } else if (Array.isArray(node)) node.forEach((child) => scan(child, ''));
      else if (node && typeof node === 'object') for (const [k, child] of Object.entries(node)) scan(child, key === 'mapping' ? 'mapping' : k);
    };
    const components = view.components || {};
    scan(Object.assign({}, view, { components: undefined }), '');
    while (queue.length > 0) {
      const [type, name] = queue.pop();
      scan((components[type] || {})[name], '');
    }
    const pruned = components.securitySchemes ? { securitySchemes: components.securitySchemes } : {};
    for (const key of kept) {
      const [type, name] = key.split('\u0000');
      if (!components[type] || !(name in components[type])) continue;
      pruned[type] = pruned[type] || {};
      pruned[type][name] = components[type][name];
    }
    return Object.assign({}, view, { components: pruned });
  }

  /** The introduction, with a note on how the page is drawn and a link to the whole reference. */
  function withCutNote(view, tag) {
    const note =
      `> **This page draws one tag at a time:** ${tag ? `*${tag}* in full, ` : ''}every other operation as its heading. ` +
      'Open one (from the sidebar, a link or the address) to draw its parameters, bodies and answers, or [draw the whole reference](?whole).';
    const info = Object.assign({}, view.info);
    info.description = info.description ? `${note}\n\n${info.description}` : note;
    return Object.assign({}, view, { info });
  }

  /** Draws the reference; `limit` is the number of operations drawn whole in one go, beyond which the page goes by tag. */
  window.renderReference = function (options, limit) {
    const container = document.getElementById('redoc');
    const spec = JSON.parse(document.getElementById('reference-spec').textContent);
    const ops = operations(spec);
    const added = () => window.TryIt && window.TryIt.addOperationButtons(container);
    if (ops.length <= limit || new URLSearchParams(location.search).has('whole')) return Redoc.init(spec, options, container, added);

    const tags = [...new Set([...(spec.tags || []).map((t) => t.name), ...ops.flatMap((o) => o.tags)])].filter((t) => ops.some((o) => o.tags.includes(t)));
    const shown = tagOf(location.hash, ops, tags);
    const isShown = (hash) => tagOf(hash, ops, tags) === shown || !/(^#tag\/|operation\/)/.test(hash);
    const open = (hash) => {
      location.hash = hash;
      location.reload();
    };
    // Redoc's sidebar moves through the page without changing the address's hash the browser
    // sees, so its clicks are caught before Redoc handles them.
    container.addEventListener(
      'click',
      (event) => {
        const item = event.target.closest('[data-item-id]');
        const link = event.target.closest('a[href^="#"]');
        const hash = item ? `#${item.getAttribute('data-item-id')}` : link ? link.getAttribute('href') : '';
        if (!hash || isShown(hash)) return;
        event.preventDefault();
        event.stopPropagation();
        open(hash);
      },
      true,
    );
    window.addEventListener('hashchange', () => isShown(location.hash) || location.reload());
    document.documentElement.dataset.referenceTag = shown;
    Redoc.init(withCutNote(withReachedComponents(viewOf(spec, ops, shown)), shown), options, container, added);
  };
})();
