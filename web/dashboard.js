// The dashboard's entry point: follows /events while a run goes on (one merged second per
// message), and once a scenario is done shows its full results, as the report does.
// A page opened late, reloaded, or reconnecting gets the whole scenario replayed by the
// server: seconds are keyed by their index, so a replay never counts one twice.
'use strict';
(function (S) {
  const el = (...args) => S.el(...args);
  const f = S.format;
  const app = document.getElementById('app');
  const note = document.getElementById('topbar-note');

  let live = null;    // {run, scenario, seconds: Map, tiles, charts, table, grid} while a scenario runs
  let grids = [];     // the chart grids on the page
  let redrawTimer = null;

  function disposeCharts() {
    for (const grid of grids) grid.dispose();
    grids = [];
  }

  function setStatus(text, tone) {
    note.replaceChildren(el('span', { class: 'live-dot ' + (tone || '') }), text);
  }

  function startScenario(run) {
    disposeCharts();
    const scenario = run.results[0];
    live = { run, scenario, seconds: new Map() };
    const pill = el('div', { class: 'verdict live' }, el('span', {}, 'live'), el('small', { id: 'live-progress-text' }, 'starting'));
    const progress = el('div', { class: 'progress' }, el('div', { class: 'progress-fill', id: 'live-progress' }));
    live.tiles = el('div', { id: 'live-tiles' });
    live.charts = el('div', { class: 'charts' });
    live.table = el('div', { id: 'live-table' });
    // The server's charts, shown from the first second that has server series.
    live.serverCharts = el('div', { class: 'charts' });
    live.server = el('section', { class: 'panel server', id: 'server', hidden: true }, el('h2', {}, 'Server'),
      el('p', { class: 'hint' }, 'Scraped from the app\'s metrics endpoint (--server-metrics), on the same seconds as the ' +
        'charts above.'), live.serverCharts);
    app.replaceChildren(el('article', { class: 'scenario' },
      S.view.scenarioHeader(scenario, pill),
      progress,
      live.tiles,
      S.view.section('Over time', live.charts),
      live.server,
      S.view.section('Live metrics', el('p', { class: 'hint' }, 'totals since the start; rate and percentiles of the last second'), live.table)));
    live.grid = new S.charts.ChartGrid(live.charts);
    live.serverGrid = new S.charts.ChartGrid(live.serverCharts, S.charts.serverChartSpecs);
    grids = [live.grid, live.serverGrid];
    document.title = `${scenario.scenario} · live · Stampede`;
    setStatus('live dashboard · running', 'on');
    redraw();
  }

  function addSecond(second) {
    if (!live) return;
    live.seconds.set(second.second, second);
    // Many seconds arrive at once when a page replays a run: draw once they are in.
    if (redrawTimer === null) redrawTimer = setTimeout(redraw, 30);
  }

  function totalsOf(timeline) {
    const totals = {};
    for (const entry of timeline)
      for (const [name, m] of Object.entries(entry.metrics || {})) {
        const t = totals[name] || (totals[name] = { kind: m.kind, count: 0, last: null });
        if (m.kind === 'gauge') t.last = m.last;
        else t.count += m.count || 0;
      }
    return totals;
  }

  function liveTiles(timeline, totals) {
    const latest = timeline.length ? timeline[timeline.length - 1] : null;
    const latestMetrics = (latest && latest.metrics) || {};
    const timing = ['http.request', 'iteration'].find((n) => latestMetrics[n] && latestMetrics[n].count > 0);
    const items = [
      { id: 'vus', label: 'VUs now', value: f.count(latest ? latest.vus : 0) },
      { id: 'iterations', label: 'iterations', value: f.count((totals.iterations || {}).count || 0),
        sub: latest ? f.rate((latestMetrics.iterations || {}).rate ?? latest.iterations) + ' now' : '' },
    ];
    if (timing)
      items.push({ id: 'latency', label: `${timing} p95, last second`, value: f.ms(latestMetrics[timing].p95_ms),
                   sub: `p50 ${f.ms(latestMetrics[timing].p50_ms)} · p99 ${f.ms(latestMetrics[timing].p99_ms)}` });
    const errors = (totals['iteration.errors'] || {}).count || 0;
    items.push({ id: 'errors', label: 'iteration errors', value: f.count(errors), tone: errors ? 'bad' : 'good' });
    const dropped = (totals['iterations.dropped'] || {}).count || 0;
    if (dropped) items.push({ id: 'dropped', label: 'dropped iterations', value: f.count(dropped), tone: 'warn' });
    return S.tables.tiles(items);
  }

  function redraw() {
    redrawTimer = null;
    if (!live) return;
    const timeline = [...live.seconds.values()].sort((a, b) => a.second - b.second);
    const totals = totalsOf(timeline);
    const latest = timeline.length ? timeline[timeline.length - 1] : null;
    const planned = live.scenario.options ? live.scenario.options.duration_ms / 1000 : 0;
    const elapsed = latest ? latest.second + 1 : 0;
    const bar = document.getElementById('live-progress');
    if (bar && planned > 0) bar.style.width = Math.min(100, (elapsed / planned) * 100).toFixed(1) + '%';
    const text = document.getElementById('live-progress-text');
    if (text) text.textContent = planned > 0 ? `${f.clock(elapsed)} of ${f.clock(planned)}` : f.clock(elapsed);
    live.tiles.replaceChildren(liveTiles(timeline, totals));
    // The server's series are charted in their section, not listed here (there can be hundreds).
    const loadTotals = Object.fromEntries(Object.entries(totals).filter(([name]) => !S.view.isServer(name)));
    live.table.replaceChildren(S.tables.liveTable(loadTotals, latest ? latest.metrics : {}));
    const thresholds = live.scenario.options ? live.scenario.options.thresholds : [];
    live.grid.update(timeline, thresholds, planned);
    if (S.view.hasServerSeries(timeline)) {
      live.server.hidden = false;
      live.serverGrid.update(timeline, thresholds, planned);
    }
  }

  function finish(run) {
    if (redrawTimer !== null) clearTimeout(redrawTimer);
    redrawTimer = null;
    live = null;
    disposeCharts();
    grids = S.renderResults(app, run);
    setStatus('live dashboard · finished: these are the final results', 'done');
  }

  function connect() {
    const events = new EventSource('/events');
    events.addEventListener('start', (e) => startScenario(JSON.parse(e.data)));
    events.addEventListener('message', (e) => addSecond(JSON.parse(e.data)));
    events.addEventListener('done', (e) => finish(JSON.parse(e.data)));
    events.addEventListener('open', () => { if (live) setStatus('live dashboard · running', 'on'); });
    // EventSource reconnects by itself; say so while it does (e.g. stampede has exited).
    events.addEventListener('error', () => setStatus('live dashboard · not connected to stampede (retrying)', 'off'));
  }

  setStatus('live dashboard · waiting for the run', 'on');
  app.replaceChildren(el('p', { class: 'loading' }, 'Waiting for the run to start…'));
  connect();
})(window.Stampede);
