// A finished run as the report shows it (and the dashboard, once the run is done): per
// scenario a header with the verdict, the figures a reader looks for first, the charts
// over time, thresholds, checks, every metric, and the errors.
'use strict';
window.Stampede = window.Stampede || {};

(function (S) {
  const el = (...args) => S.el(...args);
  const f = S.format;

  function loadText(options) {
    if (!options) return '';
    const peak = Math.max(options.start || 0, ...(options.stages || []).map((s) => s.target));
    const planned = f.duration(options.duration_ms);
    if (options.model === 'rate')
      return `open model: up to ${f.count(peak)} iterations/s (at most ${f.count(options.max_vus)} in flight), ${planned}`;
    return `closed model: up to ${f.count(peak)} VUs, ${planned}`;
  }

  function startedText(iso) {
    if (!iso) return '';
    const when = new Date(iso);
    return isNaN(when) ? iso : when.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  }

  function scenarioHeader(scenario, verdict) {
    const meta = [
      scenario.file,
      startedText(scenario.started_at),
      scenario.duration_ms > 0 ? 'ran ' + f.duration(scenario.duration_ms) : null,
      loadText(scenario.options),
      scenario.host ? `on ${scenario.host}, ${scenario.threads} thread${scenario.threads === 1 ? '' : 's'}` : null,
    ].filter(Boolean);
    return el('header', { class: 'scenario-head' },
      el('div', { class: 'scenario-title' },
        el('div', { class: 'eyebrow' }, 'scenario'),
        el('h1', {}, scenario.scenario),
        el('p', { class: 'meta' }, meta.join('  ·  '))),
      verdict);
  }

  function verdictOf(scenario) {
    const fl = scenario.find_limit;
    if (fl) {
      const unit = fl.by === 'rate' ? 'iterations/s' : 'VUs';
      const tone = fl.inconclusive ? 'neutral' : fl.limit !== null ? 'pass' : 'fail';
      return el('div', { class: 'verdict ' + tone },
        el('span', {}, fl.limit !== null ? `held ${f.count(fl.limit)} ${unit}` : 'no level held'),
        el('small', {}, fl.inconclusive ? 'inconclusive: the generator was the bottleneck' : 'find-limit'));
    }
    if (scenario.verdict === 'rank lost')
      return el('div', { class: 'verdict fail', title: scenario.reason }, el('span', {}, 'rank lost'),
        el('small', {}, `${scenario.lost_ranks.length} rank${scenario.lost_ranks.length === 1 ? '' : 's'} of ${scenario.ranks}`));
    if (!scenario.thresholds.length) return el('div', { class: 'verdict neutral' }, el('span', {}, 'completed'), el('small', {}, 'no thresholds'));
    const failed = scenario.thresholds.filter((t) => !t.pass).length;
    return failed
      ? el('div', { class: 'verdict fail' }, el('span', {}, 'failed'), el('small', {}, `${failed} of ${scenario.thresholds.length} thresholds`))
      : el('div', { class: 'verdict pass' }, el('span', {}, 'passed'), el('small', {}, `${scenario.thresholds.length} thresholds`));
  }

  // The latency a reader judges a run by: HTTP when there is any, else the iteration.
  function headlineTiming(metrics) {
    for (const name of ['http.request', 'iteration'])
      if (metrics[name] && metrics[name].kind === 'timing' && metrics[name].count > 0) return name;
    const any = Object.keys(metrics).find((n) => metrics[n].kind === 'timing' && metrics[n].count > 0);
    return any || null;
  }

  function keyFigures(scenario) {
    const m = scenario.metrics;
    const count = (name) => (m[name] ? m[name].count : 0);
    const items = [];
    items.push({ id: 'iterations', label: 'iterations', value: f.count(count('iterations')),
                 sub: m.iterations ? f.rate(m.iterations.rate) : '' });
    const timing = headlineTiming(m);
    if (timing)
      items.push({ id: 'latency', label: `${timing} p95`, value: f.ms(m[timing].p95_ms),
                   sub: `p50 ${f.ms(m[timing].p50_ms)} · p99 ${f.ms(m[timing].p99_ms)}` });
    if (scenario.requests && scenario.requests.sent > 0)
      items.push({ id: 'requests', label: 'requests', value: f.count(scenario.requests.sent),
                   sub: scenario.requests.failed ? `${f.count(scenario.requests.failed)} failed` : 'none failed',
                   tone: scenario.requests.failed ? 'warn' : null });
    const errors = count('iteration.errors');
    const iterations = count('iterations');
    items.push({ id: 'errors', label: 'iteration errors', value: f.count(errors),
                 sub: iterations ? f.percent(errors / iterations) + ' of iterations' : '', tone: errors ? 'bad' : 'good' });
    const checks = Object.values(scenario.checks || {});
    if (checks.length) {
      const passes = checks.reduce((a, c) => a + c.passes, 0), fails = checks.reduce((a, c) => a + c.fails, 0);
      items.push({ id: 'checks', label: 'checks passed', value: f.percent(passes + fails ? passes / (passes + fails) : null),
                   sub: `${f.count(fails)} failed of ${f.count(passes + fails)}`, tone: fails ? 'bad' : 'good' });
    }
    if (m.vus && m.vus.max !== null) items.push({ id: 'vus', label: 'peak VUs', value: f.count(m.vus.max) });
    const dropped = count('iterations.dropped');
    if (dropped) items.push({ id: 'dropped', label: 'dropped iterations', value: f.count(dropped), sub: 'no free VU under max_vus', tone: 'warn' });
    return S.tables.tiles(items);
  }

  function section(title, ...content) {
    return el('section', { class: 'panel' }, el('h2', {}, title), ...content);
  }

  // The server's metrics (`--server-metrics`) apart from the load's: they have a section of
  // their own, and would bury the load's rows in the Metrics tables.
  const isServer = (name) => name.startsWith('server.');
  function splitMetrics(metrics) {
    const load = {}, server = {};
    for (const [name, m] of Object.entries(metrics || {})) (isServer(name) ? server : load)[name] = m;
    return { load, server };
  }
  function hasServerSeries(timeline) {
    return timeline.some((entry) => Object.keys(entry.metrics || {}).some(isServer));
  }

  // Charts of the server's series over the run's seconds (`charts`: their grid's container),
  // and every server series in tables.
  function serverSection(scenario, charts) {
    const { server } = splitMetrics(scenario.metrics);
    const families = S.charts.serverFamilies(scenario.timeline).size;
    return el('section', { class: 'panel server', id: 'server' }, el('h2', {}, 'Server'),
      el('p', { class: 'hint' }, 'Scraped from the app\'s metrics endpoint (--server-metrics) once per interval, on the same ' +
        'seconds as the charts above: the cursor moves on both.'),
      families > 30 ? el('p', { class: 'hint' }, `${families} families: the first 30 are charted, every series is in the tables.`) : null,
      charts,
      S.tables.timingsTable(server), S.tables.distributionsTable(server), S.tables.countersTable(server));
  }

  // --find-limit: the headline (the most it held) and one row per step, judged over its hold.
  function findLimitSection(scenario) {
    const fl = scenario.find_limit;
    if (!fl) return null;
    const unit = fl.by === 'rate' ? 'iterations/s' : 'VUs';
    const columns = (fl.steps.find((s) => s.thresholds.length) || { thresholds: [] }).thresholds
      .map((t) => `${t.metric} ${t.aggregation}`);
    const value = (t) => {
      if (!t || !t.judged) return '–';
      if (t.unit === 'ms') return f.ms(t.value);
      if (t.unit === 'ratio') return f.percent(t.value);
      if (t.unit === 'per_second') return f.rate(t.value);
      return f.count(t.value);
    };
    // With --server-metrics: the server's signals that matter (run queue, memory, ...), one
    // column each, values per step; the one that broke first is marked.
    const server = fl.server ? fl.server.columns : [];
    const firstKey = fl.server ? fl.server.first : null;
    const signal = (c, v) => {
      if (v === null || v === undefined) return '–';
      if (c.unit === 'ms') return f.ms(v);
      if (c.unit === 'ratio') return f.percent(v);
      if (c.unit === 'bytes') return f.bytes(v);
      if (c.unit === 'count') return f.count(v);
      return f.number(v);
    };
    const serverClass = (c) => 'num server-signal' + (c.key === firstKey ? ' broke-first' : '');
    const rows = fl.steps.map((s, i) => [s, i]).filter(([s]) => s.status !== 'not_reached').map(([s, i]) =>
      el('tr', { data: { level: String(s.level), status: s.status } },
        el('td', { class: 'num' }, f.count(s.level) + (s.refine ? ' (refine)' : '')),
        s.thresholds.map((t) => el('td', { class: 'num' }, value(t))),
        server.map((c) => el('td', { class: serverClass(c), data: { signal: c.key } }, signal(c, c.values[i]))),
        el('td', {}, el('span', { class: 'badge ' + (s.status === 'pass' ? 'pass' : s.status === 'fail' ? 'fail' : 'done') }, s.status))));
    return section('Limit',
      el('p', { class: 'limit-verdict' + (fl.inconclusive ? ' notice' : '') }, fl.verdict),
      el('table', { class: 'data find-limit' },
        el('thead', {}, el('tr', {}, el('th', { class: 'num' }, unit), columns.map((c) => el('th', { class: 'num' }, c)),
          server.map((c) => el('th', { class: serverClass(c), title: c.metric, data: { signal: c.key } }, `server ${c.title}`)),
          el('th', {}, 'status'))),
        el('tbody', {}, rows)));
  }

  // The generator's own health: how busy Stampede was, and whether that makes the figures its own.
  function generatorSection(scenario) {
    const g = scenario.generator;
    if (!g) return null;
    const items = [
      { id: 'generator-cpu', label: 'generator CPU (busiest thread)', value: f.percent(g.cpu_percent_mean / 100),
        sub: `peak second ${f.percent(g.cpu_percent_peak / 100)}`, tone: g.cpu_percent_mean >= 90 ? 'bad' : null },
      { id: 'generator-loop', label: 'event-loop delay p99', value: f.ms(g.loop_delay_p99_ms), sub: `max ${f.ms(g.loop_delay_max_ms)}` },
      g.iteration_lag_p99_ms !== null ? { id: 'generator-lag', label: 'iteration.lag p99', value: f.ms(g.iteration_lag_p99_ms) } : null,
      { id: 'generator-fds', label: 'open files', value: f.count(g.open_files_peak),
        sub: g.open_files_limit !== null ? `of ${f.count(g.open_files_limit)}` : '' },
    ].filter(Boolean);
    return section('Generator', g.verdict ? el('p', { class: 'notice generator-verdict' }, g.verdict) : null, S.tables.tiles(items));
  }

  // Draws one scenario into `article`; returns its chart grids' containers (charts are drawn
  // once the article is in the document, so they know their width): the load's, and the
  // server's (null without server series).
  function renderScenario(article, scenario) {
    const charts = el('div', { class: 'charts' });
    const serverCharts = hasServerSeries(scenario.timeline) ? el('div', { class: 'charts' }) : null;
    const { load } = splitMetrics(scenario.metrics);
    // The metrics thresholds name are shown whatever they hold; the others only if they recorded something.
    const named = new Set((scenario.thresholds || []).map((t) => t.metric));
    const parts = [
      scenarioHeader(scenario, verdictOf(scenario)),
      scenario.interrupts ? el('p', { class: 'notice' }, scenario.interrupts === 1
        ? 'Interrupted with Ctrl-C: no new iterations were started after that, running ones could finish.'
        : 'Stopped with a second Ctrl-C: iterations still running were cut off.') : null,
      keyFigures(scenario),
      findLimitSection(scenario),
      section('Over time', charts),
      serverCharts ? serverSection(scenario, serverCharts) : null,
      el('div', { class: 'columns' },
        section('Thresholds', S.tables.thresholdsTable(scenario.thresholds)),
        section('Checks', S.tables.checksTable(scenario.checks))),
      section('Metrics', S.tables.timingsTable(load, named) || el('p', { class: 'empty' }, 'No timing was recorded.'),
              S.tables.distributionsTable(load), S.tables.countersTable(load, named)),
      section('Errors', S.tables.errorsTable(scenario.iteration_errors)),
      generatorSection(scenario),
    ];
    article.append(...parts.filter(Boolean));
    return { charts, serverCharts };
  }

  function footer(run) {
    const tool = run.tool || {};
    return el('footer', { class: 'footer' },
      `Made by ${tool.name || 'stampede'} ${tool.version || ''} (${tool.commit || 'unknown'}). `,
      'Charts by uPlot (MIT license, embedded in this page). This page loads nothing from anywhere.');
  }

  // Several scenarios: one line each at the top, linking to its part of the page.
  // A file written while the run went on (kept current in case the process is killed):
  // say so above everything, with the reason.
  function incompleteNotice(run) {
    if (run.complete !== false) return null;
    return el('section', { class: 'panel incomplete', role: 'alert' },
      el('h2', {}, 'Incomplete run'), el('p', {}, run.reason || 'The run did not reach its end.'));
  }

  function overview(run) {
    if (run.results.length < 2) return null;
    return el('section', { class: 'panel overview' }, el('h2', {}, `${run.results.length} scenarios`),
      el('table', { class: 'data' },
        el('thead', {}, el('tr', {}, el('th', {}, ''), el('th', {}, 'scenario'), el('th', { class: 'num' }, 'iterations'),
          el('th', { class: 'num' }, 'p95'), el('th', { class: 'num' }, 'iteration errors'))),
        el('tbody', {}, run.results.map((scenario, i) => {
          const m = scenario.metrics;
          const timing = headlineTiming(m);
          const failed = scenario.thresholds.some((t) => !t.pass);
          const verdict = !scenario.thresholds.length ? 'done' : failed ? 'fail' : 'pass';
          return el('tr', {},
            el('td', {}, el('span', { class: 'badge ' + verdict }, verdict)),
            el('td', {}, el('a', { href: `#scenario-${i + 1}` }, scenario.scenario)),
            el('td', { class: 'num' }, f.count(m.iterations ? m.iterations.count : 0)),
            el('td', { class: 'num' }, timing ? `${f.ms(m[timing].p95_ms)} (${timing})` : '–'),
            el('td', { class: 'num' }, f.count(m['iteration.errors'] ? m['iteration.errors'].count : 0)));
        }))));
  }

  // Replaces what `app` shows with the whole run; returns the chart grids it drew.
  S.renderResults = function renderResults(app, run) {
    const grids = [];
    const articles = run.results.map((_, i) => el('article', { class: 'scenario', id: `scenario-${i + 1}` }));
    app.replaceChildren(...[incompleteNotice(run), overview(run), ...articles, footer(run)].filter(Boolean));
    run.results.forEach((scenario, i) => {
      const { charts, serverCharts } = renderScenario(articles[i], scenario);
      const grid = new S.charts.ChartGrid(charts);
      grid.update(scenario.timeline, scenario.thresholds);
      grids.push(grid);
      if (serverCharts) {
        const serverGrid = new S.charts.ChartGrid(serverCharts, S.charts.serverChartSpecs);
        serverGrid.update(scenario.timeline, scenario.thresholds);
        grids.push(serverGrid);
      }
    });
    if (run.results.length === 1) document.title = `${run.results[0].scenario} · Stampede`;
    else document.title = `${run.results.length} scenarios · Stampede`;
    return grids;
  };

  S.view = { scenarioHeader, keyFigures, section, loadText, isServer, hasServerSeries };
})(window.Stampede);
