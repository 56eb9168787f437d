// Outboxer console: reads the admin API next to this page (api/), refreshes itself, and retries or
// discards messages after a confirmation. Data is only ever put into the page as text, never as HTML:
// group keys and errors come from messages.
(() => {
  'use strict';

  const REFRESH_MILLIS = 5000;
  const PAGE_SIZE = 50;
  const AUTH_KEY = 'outboxer-admin-authorization';
  const api = new URL('api/', document.baseURI);
  const $ = (id) => document.getElementById(id);

  const USER_KEY = 'outboxer-admin-user';
  let authorization = sessionStorage.getItem(AUTH_KEY);
  // Said as "Signed in as" only once the server accepted it: a sign-in is a claim until then.
  let user = sessionStorage.getItem(USER_KEY);
  let accepted = false;
  let outboxes = [];
  let current = null;
  let deadPages = [0];          // the "after" of each page shown so far; the last one is the current page
  let deadNext = null;
  let groupFilter = '';
  const selected = new Set();
  let timer = null;
  let refreshing = false;

  /** Stops a refresh after the login form was shown. */
  class SignInNeeded extends Error {}

  async function call(method, path, body) {
    // X-Requested-With: the API then challenges a missing sign-in with a scheme the browser leaves
    // to us (a Basic challenge would bring up the browser's own dialog instead of our form).
    const headers = { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' };
    if (authorization) headers.Authorization = authorization;
    if (method !== 'GET') headers['X-Outbox-Admin'] = '1';
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(new URL(path, api), {
      // 'omit': a 401 that a server's own security layer answers with a Basic challenge (a wrong password) reaches
      // this script instead of the browser's sign-in dialog (Fetch: no prompt without credentials included); the
      // credentials go in the Authorization header set above.
      method, headers, credentials: 'omit', cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // Any 401 to credentials we sent is a refusal of them, whoever answered: the admin API (JSON) or the server's
    // own security layer in front of it (WildFly answers a wrong password with an HTML page and a Basic challenge).
    const data = await response.json().catch(() => null);
    if (response.status === 401) {
      const refused = Boolean(headers.Authorization);
      forget();
      showLogin(refused ? 'Wrong user or password.' : null);
      throw new SignInNeeded();
    }
    if (response.status === 403 && method === 'GET') {
      showLogin((data && data.error) || 'This user may not use the outbox console.');
      throw new SignInNeeded();
    }
    if (!response.ok) throw new Error((data && data.error) || `The server answered ${response.status}.`);
    return data;
  }

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else if (name === 'text') node.textContent = value;
      else node.setAttribute(name, value === true ? '' : value);
    }
    for (const child of children) node.append(child);
    return node;
  }

  const cell = (label, value, className) =>
    el('td', { 'data-label': label, class: className, text: value === null || value === undefined ? '–' : String(value) });

  function time(iso) {
    return iso ? new Date(iso).toLocaleString() : '–';
  }

  function duration(millis) {
    const seconds = Math.floor(millis / 1000);
    if (seconds < 60) return `${seconds}s`;
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
    const hours = Math.floor(minutes / 60);
    if (hours < 48) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
    return hours % 24 === 0 ? `${hours / 24}d` : `${Math.floor(hours / 24)}d ${hours % 24}h`;
  }

  function say(text, kind) {
    const message = $('message');
    message.textContent = text || '';
    message.className = 'message' + (kind === 'info' ? ' info' : '');
    message.hidden = !text;
  }

  /** Drops the credentials the server refused: they are not sent again. */
  function forget() {
    authorization = null;
    user = null;
    accepted = false;
    sessionStorage.removeItem(AUTH_KEY);
    sessionStorage.removeItem(USER_KEY);
  }

  function showLogin(reason) {
    stopRefreshing();
    $('outbox').hidden = true;
    $('login').hidden = false;
    $('logout').hidden = true;
    $('who').textContent = '';
    say(reason);
    $('user').focus();
  }

  function rows(tbody, list, render, columns, emptyText) {
    tbody.replaceChildren(...(list.length ? list.map(render)
      : [el('tr', {}, el('td', { colspan: columns, class: 'empty', text: emptyText }))]));
  }

  function renderNav() {
    $('outboxes').replaceChildren(...outboxes.map((outbox) => el('a', {
      href: '#' + encodeURIComponent(outbox.name), text: outbox.name,
      'aria-current': outbox.name === current ? 'page' : null,
    })));
  }

  function renderCounts(view) {
    $('outbox-name').textContent = `Outbox ${view.name}`;
    $('pending').textContent = view.pending;
    $('retrying').textContent = view.retrying;
    $('dead').textContent = view.dead;
    $('dead').classList.toggle('bad', view.dead > 0);
    $('dead-retention').textContent = view.deadRetentionMillis == null ? 'kept until retried or discarded'
      : `removed ${duration(view.deadRetentionMillis)} after they died`;
    $('lag').textContent = duration(view.lagMillis);
  }

  function renderPartitions(partitions) {
    rows($('partitions').tBodies[0], partitions, (p) => el('tr', { 'data-partition': p.partition },
      cell('Partition', p.partition), cell('Owner node', p.owner || 'never claimed'),
      cell('Fencing token', p.fencingToken), cell('Last run', time(p.lastRun)),
      cell('Pending', p.pending), cell('Retrying', p.retrying), held(p.preparedBy)), 7, 'No partitions yet.');
  }

  // A prepared (two-phase) transaction that holds the partition: no worker can claim it until the transaction is
  // committed or rolled back (by the transaction manager's recovery, or by hand with its gid).
  function held(prepared) {
    if (!prepared) return cell('Held by', '–');
    return cell('Held by', `prepared transaction '${prepared.gid}' since ${time(prepared.preparedAt)}`
      + ` (user ${prepared.owner}, database ${prepared.database}): no worker can claim the partition until it is`
      + ` committed or rolled back (COMMIT PREPARED / ROLLBACK PREPARED '${prepared.gid}')`, 'error held');
  }

  function renderBlocked(groups) {
    rows($('blocked').tBodies[0], groups, (g) => el('tr', { 'data-id': g.messageId },
      cell('Group', g.groupKey == null ? '(no group)' : g.groupKey), cell('Message', g.messageId),
      cell('Attempts', g.attempts), cell('Next attempt', time(g.nextAttempt)),
      g.attempts === 0 && g.lastError == null ? cell('Last error', 'delayed: not relayed before its time', 'hint')
        : cell('Last error', g.lastError, 'error'),
      el('td', {}, el('button', { type: 'button', class: 'link danger discard', text: 'Discard',
        onclick: () => change(`Discard message ${g.messageId}? It is removed for good and never relayed; `
          + 'the rest of its group moves on.', 'DELETE', `messages/${g.messageId}`) }))),
    6, 'No group is blocked.');
  }

  function renderDead(page) {
    const ids = new Set(page.messages.map((m) => m.id));
    for (const id of [...selected]) if (!ids.has(id)) selected.delete(id);
    deadNext = page.nextAfter == null ? null : page.nextAfter;
    rows($('dead-letters').tBodies[0], page.messages, (m) => el('tr', { 'data-id': m.id },
      el('td', {}, el('input', { type: 'checkbox', class: 'select', 'aria-label': `Select message ${m.id}`,
        checked: selected.has(m.id), onchange: (event) => {
          if (event.target.checked) selected.add(m.id); else selected.delete(m.id);
          updateButtons();
        } })),
      cell('Id', m.id), cell('Group', m.groupKey == null ? '(no group)' : m.groupKey), cell('Type', m.type),
      cell('Attempts', m.attempts), cell('Last error', m.lastError, 'error'), cell('Last attempt', time(m.lastAttemptAt)),
      el('td', {},
        el('button', { type: 'button', class: 'link retry', text: 'Retry',
          onclick: () => change(`Retry dead message ${m.id}? It is relayed again under a new id.`,
            'POST', `messages/${m.id}/retry`) }),
        el('button', { type: 'button', class: 'link danger discard', text: 'Discard',
          onclick: () => change(`Discard dead message ${m.id}? It is removed for good.`,
            'DELETE', `messages/${m.id}`) }))),
    8, groupFilter ? `No dead messages in group ${groupFilter}.` : 'No dead messages.');
    updateButtons();
  }

  function updateButtons() {
    $('retry-selected').disabled = selected.size === 0;
    $('discard-selected').disabled = selected.size === 0;
    $('retry-selected').textContent = selected.size ? `Retry selected (${selected.size})` : 'Retry selected';
    $('discard-selected').textContent = selected.size ? `Discard selected (${selected.size})` : 'Discard selected';
    $('retry-group').hidden = !groupFilter;
    $('discard-group').hidden = !groupFilter;
    $('first-page').disabled = deadPages.length === 1;
    $('next-page').disabled = deadNext === null;
    const boxes = [...document.querySelectorAll('#dead-letters input.select')];
    $('select-all').checked = boxes.length > 0 && boxes.every((box) => box.checked);
  }

  function outboxPath(suffix) {
    return `outboxes/${encodeURIComponent(current)}${suffix}`;
  }

  async function refresh() {
    if (refreshing || $('confirm').open) return;
    refreshing = true;
    try {
      outboxes = await call('GET', 'outboxes');
      if (!outboxes.some((outbox) => outbox.name === current)) {
        const wanted = decodeURIComponent(location.hash.slice(1));
        current = outboxes.some((outbox) => outbox.name === wanted) ? wanted : (outboxes[0] || {}).name || null;
      }
      renderNav();
      $('login').hidden = true;
      $('logout').hidden = !authorization;
      accepted = Boolean(authorization);
      $('who').textContent = accepted && user ? `Signed in as ${user}` : '';
      if (!current) {
        say('No outbox is configured.', 'info');
        return;
      }
      const after = deadPages[deadPages.length - 1];
      const group = groupFilter ? `&group=${encodeURIComponent(groupFilter)}` : '';
      const [partitions, blocked, dead] = await Promise.all([
        call('GET', outboxPath('/partitions')),
        call('GET', outboxPath('/blocked-groups?limit=100')),
        call('GET', outboxPath(`/dead?limit=${PAGE_SIZE}&after=${after}${group}`)),
      ]);
      renderCounts(outboxes.find((outbox) => outbox.name === current));
      renderPartitions(partitions);
      renderBlocked(blocked);
      renderDead(dead);
      $('outbox').hidden = false;
      $('updated').textContent = `Updated ${new Date().toLocaleTimeString()}`;
      startRefreshing();
    } catch (error) {
      if (!(error instanceof SignInNeeded)) say(error.message);
    } finally {
      refreshing = false;
    }
  }

  function confirmed(text) {
    const dialog = $('confirm');
    $('confirm-text').textContent = text;
    dialog.returnValue = '';
    dialog.showModal();
    return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'),
      { once: true }));
  }

  async function change(question, method, path, body) {
    if (!(await confirmed(question))) return;
    try {
      const result = await call(method, outboxPath('/' + path), body);
      say(`${result.action === 'retry' ? 'Retried' : 'Discarded'} ${result.changed} message(s).`, 'info');
      selected.clear();
    } catch (error) {
      if (!(error instanceof SignInNeeded)) say(error.message);
    }
    await refresh();
  }

  function startRefreshing() {
    if (timer === null) timer = setInterval(refresh, REFRESH_MILLIS);
  }

  function stopRefreshing() {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  function basic(user, password) {
    const bytes = new TextEncoder().encode(`${user}:${password}`);
    return 'Basic ' + btoa(String.fromCharCode(...bytes));
  }

  $('login').addEventListener('submit', (event) => {
    event.preventDefault();
    authorization = basic($('user').value, $('password').value);
    user = $('user').value;
    accepted = false;
    sessionStorage.setItem(AUTH_KEY, authorization);
    sessionStorage.setItem(USER_KEY, user);
    $('password').value = '';
    $('who').textContent = '';
    say(null);
    refresh();
  });
  $('logout').addEventListener('click', () => {
    forget();
    showLogin('Signed out.');
  });
  $('dead-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    groupFilter = $('group-filter').value.trim();
    deadPages = [0];
    selected.clear();
    refresh();
  });
  $('select-all').addEventListener('change', (event) => {
    for (const box of document.querySelectorAll('#dead-letters input.select')) {
      box.checked = event.target.checked;
      const id = Number(box.closest('tr').dataset.id);
      if (box.checked) selected.add(id); else selected.delete(id);
    }
    updateButtons();
  });
  $('retry-selected').addEventListener('click', () => change(
    `Retry ${selected.size} dead message(s)? They are relayed again under new ids.`, 'POST', 'retry', { ids: [...selected] }));
  $('discard-selected').addEventListener('click', () => change(
    `Discard ${selected.size} message(s)? They are removed for good.`, 'POST', 'discard', { ids: [...selected] }));
  $('retry-group').addEventListener('click', () => change(
    `Retry every dead message of group ${groupFilter}?`, 'POST', 'retry', { group: groupFilter }));
  $('discard-group').addEventListener('click', () => change(
    `Discard every dead message of group ${groupFilter}? They are removed for good.`, 'POST', 'discard',
    { group: groupFilter }));
  $('first-page').addEventListener('click', () => { deadPages = [0]; refresh(); });
  $('next-page').addEventListener('click', () => {
    if (deadNext !== null) { deadPages.push(deadNext); refresh(); }
  });
  window.addEventListener('hashchange', () => {
    current = decodeURIComponent(location.hash.slice(1));
    deadPages = [0];
    selected.clear();
    refresh();
  });

  refresh();
})();
