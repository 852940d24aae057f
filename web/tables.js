// The page's tables and figure tiles, built with Stampede.el (text only, never HTML).
'use strict';
window.Stampede = window.Stampede || {};

(function (S) {
  const el = (...args) => S.el(...args);
  const f = S.format;

  function metricCell(name) {
    return el('td', { class: 'metric' }, el('span', { class: 'swatch', style: { background: S.colors.forMetric(name) } }), name);
  }

  function table(className, headings, rows) {
    return el('table', { class: className },
      el('thead', {}, el('tr', {}, headings.map((h) => el('th', { class: h.num ? 'num' : '' }, h.text || h)))),
      el('tbody', {}, rows));
  }

  const num = (text) => ({ text, num: true });

  // Tiles of the figures a reader looks for first. items: [{label, value, sub, tone}]
  function tiles(items) {
    return el('div', { class: 'tiles' }, items.map((item) =>
      el('div', { class: 'tile' + (item.tone ? ' tone-' + item.tone : ''), data: { tile: item.id } },
        el('div', { class: 'tile-label' }, item.label),
        el('div', { class: 'tile-value' }, item.value),
        item.sub ? el('div', { class: 'tile-sub' }, item.sub) : null)));
  }

  // A timing's "<name>.errors" counter, shown in the timing's row (as in the terminal's summary).
  const errorsOf = (metrics, name) => {
    const e = metrics[name + '.errors'];
    return e && e.kind === 'counter' ? e : null;
  };
  const isFoldedErrors = (metrics, name) =>
    name.endsWith('.errors') && metrics[name.slice(0, -'.errors'.length)] &&
    metrics[name.slice(0, -'.errors'.length)].kind === 'timing';

  // What the run recorded, or a threshold names (`named`: a Set): the rest is left out.
  const worthShowing = (metrics, name, m, named) =>
    named.has(name) || m.count > 0 || (errorsOf(metrics, name) && (errorsOf(metrics, name).count > 0 || named.has(name + '.errors')));

  function timingsTable(metrics, named = new Set()) {
    const shown = Object.entries(metrics).filter(([name, m]) => m.kind === 'timing' && worthShowing(metrics, name, m, named));
    const withErrors = shown.some(([name]) => errorsOf(metrics, name));
    const rows = shown.map(([name, m]) => {
      const errors = errorsOf(metrics, name);
      return el('tr', { data: { metric: name }, class: errors && errors.count > 0 ? 'bad' : '' }, metricCell(name),
        el('td', { class: 'num count' }, f.count(m.count)), el('td', { class: 'num' }, f.rate(m.rate)),
        ['mean_ms', 'p50_ms', 'p90_ms', 'p95_ms', 'p99_ms', 'max_ms'].map((k) => el('td', { class: 'num' }, f.ms(m[k]))),
        withErrors ? el('td', { class: 'num errors', title: errors ? reasonsText(errors.reasons) : null },
          errors ? f.count(errors.count) : '') : null);
    });
    if (!rows.length) return null;
    return table('data timings', ['timing', num('count'), num('rate'), num('mean'), num('p50'), num('p90'), num('p95'),
      num('p99'), num('max'), withErrors ? num('errors') : null].filter(Boolean), rows);
  }

  // Histograms of plain values (e.g. live.diff.bytes), in the unit the results name.
  function distributionsTable(metrics) {
    const rows = Object.entries(metrics).filter(([, m]) => m.kind === 'distribution').map(([name, m]) =>
      el('tr', { data: { metric: name } }, metricCell(name),
        el('td', { class: 'num count' }, f.count(m.count)), el('td', { class: 'num' }, f.rate(m.rate)),
        ['mean', 'p50', 'p90', 'p95', 'p99', 'max'].map((k) => el('td', { class: 'num' }, f.value(m[k], m.unit)))));
    if (!rows.length) return null;
    return table('data distributions', ['distribution', num('count'), num('rate'), num('mean'), num('p50'), num('p90'),
      num('p95'), num('p99'), num('max')], rows);
  }

  function reasonsText(reasons) {
    const entries = Object.entries(reasons || {});
    if (!entries.length) return '';
    return entries.sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${reason} ${f.count(count)}`).join(' · ');
  }

  // A grouped reason's example message in full, for the cell's tooltip.
  function examplesText(examples) {
    const entries = Object.entries(examples || {});
    return entries.length ? entries.map(([reason, example]) => `${reason}\n  e.g. ${example}`).join('\n') : null;
  }

  function countersTable(metrics, named = new Set()) {
    const rows = Object.entries(metrics).filter(([name, m]) =>
      (m.kind === 'counter' && !isFoldedErrors(metrics, name) && (m.count > 0 || named.has(name))) ||
      (m.kind === 'gauge' && (m.max !== null || named.has(name)))).map(([name, m]) => {
      if (m.kind === 'gauge')
        return el('tr', { data: { metric: name } }, metricCell(name),
          el('td', { class: 'num count' }, m.max === null ? '–' : `max ${f.count(m.max)}`), el('td', { class: 'num' }, ''),
          el('td', { class: 'reasons' }, m.last === null ? '' : `last ${f.count(m.last)}`));
      return el('tr', { data: { metric: name }, class: m.count > 0 && /errors|dropped|crashes|timeouts/.test(name) ? 'bad' : '' },
        metricCell(name), el('td', { class: 'num count' }, f.count(m.count)), el('td', { class: 'num' }, f.rate(m.rate)),
        el('td', { class: 'reasons', title: examplesText(m.examples) }, reasonsText(m.reasons)));
    });
    if (!rows.length) return null;
    return table('data counters', ['counter', num('count'), num('rate'), 'by reason'], rows);
  }

  function thresholdsTable(thresholds) {
    if (!thresholds.length) return el('p', { class: 'empty' }, 'No thresholds: this run had no pass/fail criteria.');
    return table('data thresholds', ['', 'metric', 'threshold', num('measured'), ''], thresholds.map((t) =>
      el('tr', { class: t.pass ? 'pass' : 'fail' },
        el('td', {}, el('span', { class: 'badge ' + (t.pass ? 'pass' : 'fail') }, t.pass ? 'pass' : 'fail')),
        metricCell(t.metric),
        el('td', { class: 'condition' }, `${t.aggregation} ≤ ${f.inUnit(t.limit, t.unit)}`),
        el('td', { class: 'num' }, t.judged ? f.inUnit(t.value, t.unit) : '–'),
        el('td', { class: 'message' }, t.judged ? '' : t.message))));
  }

  function checksTable(checks) {
    const entries = Object.entries(checks || {});
    if (!entries.length) return el('p', { class: 'empty' }, 'No checks in this scenario.');
    return table('data checks', ['check', 'passed', num('passes'), num('fails')], entries.map(([name, c]) => {
      const rate = c.pass_rate === null ? 0 : c.pass_rate;
      return el('tr', { class: c.fails > 0 ? 'bad' : '' },
        el('td', { class: 'check-name' }, name),
        el('td', { class: 'bar-cell' }, el('div', { class: 'bar' }, el('div', { class: 'bar-fill', style: { width: (rate * 100).toFixed(2) + '%' } })),
          el('span', { class: 'bar-text' }, f.percent(c.pass_rate))),
        el('td', { class: 'num' }, f.count(c.passes)), el('td', { class: 'num' }, f.count(c.fails)));
    }));
  }

  function errorsTable(errors) {
    if (!errors.length) return el('p', { class: 'empty' }, 'No iteration failed.');
    return table('data errors', [num('count'), 'message'], errors.map((e) =>
      el('tr', {}, el('td', { class: 'num' }, f.count(e.count)), el('td', {}, el('pre', { class: 'error-message' }, e.message),
        e.example ? el('pre', { class: 'error-example' }, 'e.g. ' + e.example) : null))));
  }

  // The dashboard's table while a run goes on: totals so far and the latest second.
  // `totals`: name -> {kind, count}; `latest`: the last second's metrics.
  function liveTable(totals, latest) {
    const names = Object.keys(totals).sort();
    const timingsFirst = names.filter((n) => totals[n].kind === 'timing').concat(names.filter((n) => totals[n].kind !== 'timing'));
    return table('data live', ['metric', num('total'), num('last second'), num('p50'), num('p95'), num('p99')],
      timingsFirst.map((name) => {
        const total = totals[name];
        const now = (latest && latest[name]) || {};
        const timing = total.kind === 'timing';
        return el('tr', { data: { metric: name } }, metricCell(name),
          el('td', { class: 'num count' }, total.kind === 'gauge' ? f.count(total.last) : f.count(total.count)),
          el('td', { class: 'num' }, total.kind === 'gauge' ? '' : f.rate(now.rate ?? 0)),
          ['p50_ms', 'p95_ms', 'p99_ms'].map((k) => el('td', { class: 'num' }, timing ? f.ms(now[k]) : '')));
      }));
  }

  S.tables = { tiles, timingsTable, distributionsTable, countersTable, thresholdsTable, checksTable, errorsTable, liveTable };
})(window.Stampede);
