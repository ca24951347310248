// The dashboard page: polls api/state every refresh and redraws the tables. Every string that comes from Redis
// reaches the page through textContent or an attribute set with setAttribute, never as markup.
'use strict';

(function () {
  const SVG = 'http://www.w3.org/2000/svg';
  let refreshMs = 1000;
  let failures = 0;
  let detail = null; // {kind, name} of the object shown on the right
  let lastState = null;
  const longestTtl = new Map(); // the longest TTL seen per object, the bar's full length when no lease TTL is known
  let drawnTtl = new Set();

  function $(id) { return document.getElementById(id); }

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    if (cls) { e.className = cls; }
    return e;
  }

  function time(ms) {
    if (ms === null || ms === undefined) { return '-'; }
    if (ms < 1000) { return Math.round(ms) + 'ms'; }
    if (ms < 60000) { return (ms / 1000).toFixed(1) + 's'; }
    const s = Math.floor(ms / 1000);
    if (s < 3600) { return Math.floor(s / 60) + 'm' + String(s % 60).padStart(2, '0') + 's'; }
    if (s < 86400) { return Math.floor(s / 3600) + 'h' + String(Math.floor((s % 3600) / 60)).padStart(2, '0') + 'm'; }
    return Math.floor(s / 86400) + 'd' + String(Math.floor((s % 86400) / 3600)).padStart(2, '0') + 'h';
  }

  function clock(epochMs) {
    return epochMs === null || epochMs === undefined ? '-' : new Date(epochMs).toLocaleTimeString();
  }

  function value(v) { return v === null || v === undefined ? '-' : v; }

  function row(kind, name, cells) {
    const tr = document.createElement('tr');
    tr.setAttribute('data-kind', kind);
    tr.setAttribute('data-name', name);
    if (detail && detail.kind === kind && detail.name === name) { tr.classList.add('selected'); }
    for (const c of cells) { tr.appendChild(c); }
    tr.addEventListener('click', function () { open(kind, name); });
    return tr;
  }

  function cell(text, cls) { return el('td', value(text), cls); }

  function ttlCell(key, ttlMs, fullMs) {
    const td = el('td');
    drawnTtl.add(key);
    if (ttlMs !== null && ttlMs !== undefined && !fullMs) {
      fullMs = Math.max(longestTtl.get(key) || 0, ttlMs);
      longestTtl.set(key, fullMs);
    }
    const wrap = el('div', null, 'ttl');
    if (ttlMs !== null && ttlMs !== undefined) {
      const bar = el('div', null, 'bar');
      const fill = el('div', null, 'fill');
      const pct = fullMs ? Math.max(0, Math.min(100, 100 * ttlMs / fullMs)) : 100;
      fill.style.width = pct.toFixed(1) + '%';
      if (pct < 34) { fill.classList.add('low'); }
      bar.appendChild(fill);
      wrap.appendChild(bar);
    }
    wrap.appendChild(el('span', ttlMs === null || ttlMs === undefined ? '-' : time(ttlMs)));
    td.appendChild(wrap);
    return td;
  }

  function fill(sectionId, rows, emptyText) {
    const section = $(sectionId);
    const body = section.querySelector('tbody');
    const cols = section.querySelectorAll('thead th').length;
    body.replaceChildren();
    if (rows.length === 0) {
      const tr = el('tr', null, 'empty');
      const td = el('td', emptyText);
      td.colSpan = cols;
      tr.appendChild(td);
      body.appendChild(tr);
    }
    for (const r of rows) { body.appendChild(r); }
    section.querySelector('.count').textContent = '(' + rows.length + ')';
  }

  function chart(values, cls, label) {
    const w = 160, h = 34, pad = 2;
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('class', 'chart ' + cls);
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', label);
    const lo = Math.min(0, ...values), hi = Math.max(1, ...values);
    const y = v => (h - pad - (v - lo) * (h - 2 * pad) / (hi - lo)).toFixed(1);
    const x = i => (values.length < 2 ? w : pad + i * (w - 2 * pad) / (values.length - 1)).toFixed(1);
    const zero = document.createElementNS(SVG, 'line');
    zero.setAttribute('class', 'zero');
    zero.setAttribute('x1', '0'); zero.setAttribute('x2', String(w));
    zero.setAttribute('y1', y(0)); zero.setAttribute('y2', y(0));
    svg.appendChild(zero);
    const line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('class', cls);
    line.setAttribute('points', values.map((v, i) => x(i) + ',' + y(v)).join(' '));
    svg.appendChild(line);
    const title = document.createElementNS(SVG, 'title');
    title.textContent = label;
    svg.appendChild(title);
    return svg;
  }

  function chartCell(svg, last) {
    const td = el('td');
    td.appendChild(svg);
    td.setAttribute('data-last', String(last));
    return td;
  }

  // A Redlock lock's nodes as small squares: agrees, differs, free or error, each with its node and TTL as a title.
  function nodesCell(l, nodes) {
    const td = el('td');
    if (l.mode !== 'redlock') {
      td.textContent = l.mode;
      return td;
    }
    td.appendChild(el('span', 'redlock ' + l.agreeing + '/' + l.nodes + ' '));
    for (const n of nodes || []) {
      const state = n.error ? 'error' : !n.held ? 'free' : n.agrees ? 'agrees' : 'differs';
      const dot = el('span', null, 'node ' + state);
      dot.setAttribute('title', n.node + ': ' + state + (n.error ? ' (' + n.error + ')' : '')
        + (n.ttlMs !== null && n.held ? ', ttl ' + time(n.ttlMs) : ''));
      dot.setAttribute('data-node', n.node);
      td.appendChild(dot);
    }
    return td;
  }

  function locks(doc, redlockNodes) {
    return doc.items.map(l => {
      const h = l.holder || {};
      const host = h.host ? h.host + (h.pid !== null && h.pid !== undefined ? ' / ' + h.pid : '') : '-';
      const holder = l.held ? (h.id || (l.readers.length ? l.readers.length + ' readers' : 'unknown')) : '-';
      const flags = el('td');
      for (const f of l.flags) { flags.appendChild(el('span', f, 'flag')); }
      return row('lock', l.name, [cell(l.name, 'name'), cell(holder, 'holder'), cell(host), cell(time(l.heldForMs)),
        ttlCell('lock ' + l.name, l.ttlMs, l.leaseTtlMs), cell(l.fence, 'fence'), cell(l.waiters), nodesCell(l, redlockNodes[l.name]), flags]);
    });
  }

  function elections(doc, history) {
    return doc.items.map(e => {
      const terms = (history[e.name] || []).slice().reverse().slice(0, 5)
        .map(t => t.term + ' ' + t.leader).join(', ');
      return row('election', e.name, [cell(e.name, 'name'), cell(e.leader, 'leader'), cell(e.term, 'term'),
        cell(e.since === null ? '-' : clock(e.since) + ' (' + time(e.leaderForMs) + ')'),
        ttlCell('election ' + e.name, e.leader === null ? null : e.ttlMs, null), cell(terms || '-')]);
    });
  }

  function queues(doc, history) {
    return doc.items.map(q => {
      const points = history[q.name] || [];
      const depths = points.map(p => p.depth);
      const rates = points.slice(1).map(p => p.settledPerSecond);
      const consumers = el('td');
      for (const c of q.consumers) {
        const line = el('div', c.id + ': ' + c.inFlight + ' in flight, beat ' + time(c.heartbeatAgeMs) + ' ago'
          + (c.alive ? '' : ' (dead)'), c.alive ? null : 'dead');
        consumers.appendChild(line);
      }
      if (q.consumers.length === 0) { consumers.textContent = '-'; }
      const last = rates.length ? rates[rates.length - 1] : 0;
      return row('queue', q.name, [cell(q.name, 'name'), cell(q.depth, 'depth'), cell(q.inFlight),
        cell(time(q.oldestReadyAgeMs)), cell(q.delayed), cell(q.deadLetters, q.deadLetters > 0 ? 'dead' : null),
        consumers,
        chartCell(chart(depths.length ? depths : [q.depth], 'depth', 'depth of ' + q.name + ' over the last minutes'),
          q.depth),
        chartCell(chart(rates.length ? rates : [0], 'throughput', 'throughput of ' + q.name + ' (messages acked or '
          + 'dead-lettered per second, over the last minutes)'), last.toFixed(1))]);
    });
  }

  function signals(doc) {
    return doc.items.map(s => row('signal', s.channel, [cell(s.channel, 'name'), cell(s.subscribers),
      cell(s.latched), cell(s.latchedTtlMs === null ? '-' : time(s.latchedTtlMs))]));
  }

  function semaphores(doc) {
    return doc.items.map(s => row('semaphore', s.name, [cell(s.name, 'name'), cell(s.permits), cell(s.held),
      cell(s.holders.length), cell(s.waiters.length), cell(s.fencingCounter)]));
  }

  function rateLimiters(doc) {
    return doc.items.map(r => row('rate-limiter', r.name, [cell(r.name, 'name'),
      cell(r.idle ? 'idle' : time(r.busyForMs)), cell(time(r.ttlMs))]));
  }

  function latches(doc) {
    return doc.items.map(c => row('latch', c.name, [cell(c.name, 'name'), cell(c.count),
      cell(c.open ? 'open' : 'closed'), cell(c.waiters), cell(time(c.ttlMs))]));
  }

  function draw(state) {
    lastState = state;
    drawnTtl = new Set();
    $('redis').textContent = state.redis.join(', ') + '  ' + state.match;
    const error = $('error');
    error.hidden = !state.error;
    error.textContent = state.error ? 'Redis could not be read: ' + state.error : '';
    const byKind = {};
    for (const d of state.listings) { byKind[d.kind] = d; }
    const none = {items: []};
    fill('locks', locks(byKind.locks || none, state.redlockNodes || {}), 'no locks');
    fill('elections', elections(byKind.elections || none, state.history.elections), 'no elections');
    fill('queues', queues(byKind.queues || none, state.history.queues), 'no queues');
    fill('signals', signals(byKind.signals || none), 'no channels with subscribers');
    $('semaphores').hidden = !byKind.semaphores;
    fill('semaphores', semaphores(byKind.semaphores || none), 'no semaphores');
    $('rate-limiters').hidden = !byKind['rate-limiters'];
    fill('rate-limiters', rateLimiters(byKind['rate-limiters'] || none), 'no rate limiters');
    $('latches').hidden = !byKind.latches;
    fill('latches', latches(byKind.latches || none), 'no latches');
    for (const key of [...longestTtl.keys()]) {
      if (!drawnTtl.has(key)) { longestTtl.delete(key); }
    }
    const status = $('status');
    status.classList.toggle('stale', !!state.error);
    status.textContent = 'read ' + clock(state.at) + ', every ' + time(state.refreshMs);
  }

  function open(kind, name) {
    detail = {kind: kind, name: name};
    $('detail').hidden = false;
    $('detail-title').textContent = kind + ' ' + name;
    for (const tr of document.querySelectorAll('tbody tr')) {
      tr.classList.toggle('selected', tr.getAttribute('data-kind') === kind && tr.getAttribute('data-name') === name);
    }
    showDetail();
  }

  function showDetail() {
    if (!detail) { return; }
    const asked = detail;
    const url = 'api/inspect?kind=' + encodeURIComponent(asked.kind) + '&name=' + encodeURIComponent(asked.name);
    fetch(url, {cache: 'no-store'}).then(r => r.json()).then(doc => {
      if (detail !== asked) { return; }
      $('detail-text').textContent = doc.error ? doc.error : doc.text.join('\n');
    }).catch(e => { $('detail-text').textContent = 'could not read it: ' + e; });
  }

  function close() {
    detail = null;
    $('detail').hidden = true;
    for (const tr of document.querySelectorAll('tbody tr.selected')) { tr.classList.remove('selected'); }
  }

  function poll() {
    fetch('api/state', {cache: 'no-store'}).then(r => {
      if (!r.ok) { throw new Error('HTTP ' + r.status); }
      return r.json();
    }).then(state => {
      failures = 0;
      refreshMs = state.refreshMs || refreshMs;
      draw(state);
      showDetail();
    }).catch(e => {
      failures++;
      const status = $('status');
      status.classList.add('stale');
      status.textContent = 'dashboard unreachable (' + e.message + ')' + (lastState ? ', showing ' + clock(lastState.at) : '');
    }).finally(() => {
      setTimeout(poll, failures ? Math.min(10000, refreshMs * (1 + failures)) : refreshMs);
    });
  }

  $('detail-close').addEventListener('click', close);
  document.addEventListener('keydown', e => { if (e.key === 'Escape') { close(); } });
  poll();
})();
