/*
 * The "try it" console of the docs portal: sends one request of the contract to the local stubs or
 * the mock and shows the answer (status, headers, body). It reads the model the build embeds in the
 * page (#try-it-model, see scripts/steps/docs/console-model.ts) and needs nothing from the network
 * but the server it calls. Plain browser JavaScript, so the page also works opened from disk.
 */
(function () {
  'use strict';
  const modelElement = document.getElementById('try-it-model');
  if (!modelElement) return;
  const model = JSON.parse(modelElement.textContent);
  const byId = new Map(model.operations.map((op) => [op.id, op]));

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attributes || {})) {
      if (k === 'class') node.className = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const child of children) node.append(child);
    return node;
  }

  /**
   * Served by the stubs (`npm start`, `npm run dev`), the page offers the servers running now: its
   * own origin, and those the server lists beside it in services.js (the dev mock, on whatever port
   * it was given). Opened from disk, or from a server that lists nothing, the contract's servers.
   */
  function servers() {
    const running = window.PORTAL_SERVERS;
    if (!location.protocol.startsWith('http')) return model.servers.slice();
    const own = { url: location.origin + model.basePath, description: 'this server' };
    if (!Array.isArray(running)) return [own, ...model.servers.filter((s) => s.url !== own.url)];
    return [own, ...running.map((s) => ({ url: `${location.protocol}//${location.hostname}:${s.port}${model.basePath}`, description: s.description }))];
  }

  const panel = el('aside', { id: 'try-it', class: 'try-it', 'aria-label': 'Try it', hidden: '' });
  const serverSelect = el('select', { id: 'ti-server' });
  for (const s of servers()) serverSelect.append(el('option', { value: s.url }, `${s.url}${s.description ? ` (${s.description.replace(/`/g, '')})` : ''}`));
  const operationSelect = el('select', { id: 'ti-operation', onchange: () => showOperation(operationSelect.value) });
  for (const op of model.operations) operationSelect.append(el('option', { value: op.id }, `${op.method} ${op.path}${op.summary ? ` — ${op.summary}` : ''}`));
  const credentialSelect = el('select', { id: 'ti-credential', onchange: () => fillCredential() });
  credentialSelect.append(el('option', { value: '' }, 'none (type headers below)'));
  model.credentials.forEach((c, i) => credentialSelect.append(el('option', { value: String(i) }, c.label)));
  const parameterBox = el('div', { class: 'ti-parameters' });
  const headersInput = el('textarea', { id: 'ti-headers', rows: '3', spellcheck: 'false', placeholder: 'Name: value, one a line' });
  const bodyLabel = el('span', {}, 'Body');
  const bodyInput = el('textarea', { id: 'ti-body', rows: '8', spellcheck: 'false' });
  const bodyField = el('label', { class: 'ti-field' }, bodyLabel, bodyInput);
  const note = el('p', { class: 'ti-note' });
  const sendButton = el('button', { id: 'ti-send', type: 'button', onclick: () => send() }, 'Send');
  const stopButton = el('button', { id: 'ti-stop', type: 'button', hidden: '', onclick: () => controller && controller.abort() }, 'Stop');
  const curlLine = el('pre', { class: 'ti-curl', title: 'the same request with curl' });
  const statusLine = el('div', { id: 'ti-status', class: 'ti-status' });
  const responseHeaders = el('pre', { id: 'ti-response-headers', class: 'ti-response-headers' });
  const responseBody = el('pre', { id: 'ti-response-body', class: 'ti-response-body' });
  const closeButton = el('button', { type: 'button', class: 'ti-close', 'aria-label': 'Close', onclick: () => panel.setAttribute('hidden', '') }, '×');

  panel.append(
    el('header', {}, el('strong', {}, 'Try it'), closeButton),
    el('label', { class: 'ti-field' }, el('span', {}, 'Server'), serverSelect),
    el('label', { class: 'ti-field' }, el('span', {}, 'Operation'), operationSelect),
    parameterBox,
    el('label', { class: 'ti-field' }, el('span', {}, 'Credential'), credentialSelect),
    el('label', { class: 'ti-field' }, el('span', {}, 'Headers'), headersInput),
    bodyField,
    note,
    el('div', { class: 'ti-actions' }, sendButton, stopButton),
    curlLine,
    el('section', { class: 'ti-response', 'aria-live': 'polite' }, statusLine, responseHeaders, responseBody),
  );
  // Opened from each operation's heading only: a second, page-wide button beside every operation read as a duplicate.
  document.body.append(panel);

  let current = model.operations[0];
  let controller;

  function showOperation(id) {
    current = byId.get(id) || model.operations[0];
    if (!current) return;
    operationSelect.value = current.id;
    parameterBox.replaceChildren(
      ...current.parameters.map((p) =>
        el(
          'label',
          { class: 'ti-field' },
          el('span', {}, `${p.name} `, el('small', {}, `${p.in}${p.required ? ', required' : ''}`)),
          el('input', { 'data-name': p.name, 'data-in': p.in, value: p.required ? p.example : '', placeholder: p.example }),
        ),
      ),
    );
    bodyField.hidden = !current.body;
    bodyLabel.textContent = current.body ? `Body (${current.body.mediaType})` : 'Body';
    bodyInput.value = current.body ? current.body.example : '';
    note.textContent = current.cookieOnly
      ? `This operation takes the \`${current.cookieOnly}\` cookie, which a page's request cannot carry: use the curl line below.`
      : '';
    fillCredential();
    updateCurl();
  }

  /** The chosen seeded credential, as the headers this operation's security sends. */
  function fillCredential() {
    const kept = headerLines().filter(([name]) => !current.authHeaders.some((h) => h.toLowerCase() === name.toLowerCase()));
    const credential = model.credentials[Number(credentialSelect.value)];
    const auth = credentialSelect.value === '' || !credential ? [] : Object.entries(credential.headers).filter(([name]) => current.authHeaders.some((h) => h.toLowerCase() === name.toLowerCase()));
    headersInput.value = [...auth, ...kept].map(([k, v]) => `${k}: ${v}`).join('\n');
    updateCurl();
  }

  function headerLines() {
    return headersInput.value
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()]);
  }

  function buildRequest() {
    let path = current.path;
    const query = new URLSearchParams();
    const headers = new Headers();
    for (const input of parameterBox.querySelectorAll('input')) {
      const { name, in: where } = input.dataset;
      const value = input.value;
      if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(value));
      else if (value === '') continue;
      else if (where === 'query') query.append(name, value);
      else headers.set(name, value);
    }
    for (const [name, value] of headerLines()) headers.set(name, value);
    const init = { method: current.method, headers };
    if (current.body && !['GET', 'HEAD'].includes(current.method) && bodyInput.value.trim() !== '') {
      if (!headers.has('content-type')) headers.set('content-type', current.body.mediaType);
      init.body = bodyInput.value;
    }
    const qs = query.toString();
    return { url: serverSelect.value.replace(/\/$/, '') + path + (qs ? `?${qs}` : ''), init };
  }

  function updateCurl() {
    if (!current) return;
    const { url, init } = buildRequest();
    const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
    const parts = ['curl', '-i', '-X', init.method, quote(url)];
    for (const [k, v] of init.headers) parts.push('-H', quote(`${k}: ${v}`));
    if (init.body !== undefined) parts.push('--data-binary', quote(init.body));
    curlLine.textContent = parts.join(' ');
  }

  async function send() {
    const { url, init } = buildRequest();
    controller = new AbortController();
    sendButton.disabled = true;
    stopButton.hidden = false;
    statusLine.className = 'ti-status';
    statusLine.textContent = `${init.method} ${url} …`;
    responseHeaders.textContent = '';
    responseBody.textContent = '';
    const started = performance.now();
    try {
      const response = await fetch(url, { ...init, signal: controller.signal });
      statusLine.textContent = `HTTP ${response.status} ${response.statusText} · ${Math.round(performance.now() - started)} ms`;
      statusLine.classList.add(response.ok ? 'ti-ok' : 'ti-failed');
      responseHeaders.textContent = [...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
      await showBody(response);
    } catch (error) {
      if (error.name !== 'AbortError') {
        statusLine.classList.add('ti-failed');
        // fetch does not say why (CORS, refused connection): the usual causes instead.
        statusLine.textContent = `No answer from ${url}: ${error.message}. Is the server running (npm start, npm run mock, npm run dev)?`;
      }
    } finally {
      sendButton.disabled = false;
      stopButton.hidden = true;
    }
  }

  /** Event streams are shown as they arrive (Stop ends them); other bodies once complete, JSON indented. */
  async function showBody(response) {
    const type = response.headers.get('content-type') || '';
    if (type.includes('text/event-stream') && response.body) {
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        responseBody.textContent += value;
      }
    }
    const text = await response.text();
    try {
      responseBody.textContent = type.includes('json') && text ? JSON.stringify(JSON.parse(text), null, 2) : text;
    } catch {
      responseBody.textContent = text;
    }
  }

  function open(id) {
    if (id) showOperation(id);
    panel.removeAttribute('hidden');
    operationSelect.focus();
  }

  /** A "Try it" button in the heading of every operation Redoc rendered. */
  function addOperationButtons(root) {
    for (const section of root.querySelectorAll('[data-section-id*="operation/"]')) {
      const id = decodeURIComponent(section.getAttribute('data-section-id').split('operation/').pop());
      const heading = section.querySelector('h2');
      if (!byId.has(id) || !heading || heading.querySelector('.try-it-operation')) continue;
      heading.append(el('button', { type: 'button', class: 'try-it-operation', 'data-operation': id, onclick: () => open(id) }, 'Try it'));
    }
  }

  for (const field of [serverSelect, headersInput, bodyInput, parameterBox]) field.addEventListener('input', updateCurl);
  serverSelect.addEventListener('change', updateCurl);
  if (model.credentials.length > 0) credentialSelect.value = '0';
  showOperation(model.operations[0] && model.operations[0].id);
  window.TryIt = { open, addOperationButtons };
})();
