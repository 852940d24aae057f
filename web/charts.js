// The charts over time, shared by the report and the dashboard: one latency chart per
// timing metric (p50, p95, p99), throughput, VUs, and errors with dropped iterations; and the
// server's charts (`--server-metrics`), one per family of server series. Each
// metric keeps its colour in every chart; thresholds are drawn as lines on the charts of
// the metric they judge, so a reader sees when a ramp crossed one.
'use strict';
window.Stampede = window.Stampede || {};

(function (S) {
  const CHART_HEIGHT = 230;
  const MS_AGGREGATIONS = ['min', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'];

  // Every second from the first to the last, so a second no worker reported is a gap in
  // the line rather than a straight segment across it. x is the end of the second: the
  // figures of second 0 are known at 0:01.
  function secondsAxis(timeline) {
    if (!timeline.length) return { x: [], at: new Map() };
    const first = timeline[0].second, last = timeline[timeline.length - 1].second;
    const x = [];
    for (let s = first; s <= last; s++) x.push(s + 1);
    const at = new Map(timeline.map((entry) => [entry.second, entry]));
    return { x, at };
  }

  function column(axis, pick) {
    return axis.x.map((x) => {
      const entry = axis.at.get(x - 1);
      if (!entry) return null;
      const value = pick(entry);
      return value === undefined || value === null || !isFinite(value) ? null : value;
    });
  }

  function metricOf(entry, name) {
    return entry.metrics ? entry.metrics[name] : undefined;
  }

  // The server's metrics (`--server-metrics`) have charts of their own (serverChartSpecs).
  const isServer = (name) => name.startsWith('server.');

  // Timing metrics that recorded something, the whole iteration first, then HTTP, the
  // others by name, and the scheduler's lag last.
  function timingMetrics(timeline) {
    const names = new Set();
    for (const entry of timeline)
      for (const [name, m] of Object.entries(entry.metrics || {}))
        if (m.kind === 'timing' && m.count > 0 && !isServer(name)) names.add(name);
    const rank = (n) => (n === 'iteration' ? 0 : n === 'http.request' ? 1 : n.startsWith('http.request.') ? 2 : n === 'iteration.lag' ? 4 : 3);
    return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  }

  // Counters of errors a scenario's clients record, charted when they ever counted.
  function errorCounters(timeline) {
    const names = new Set();
    for (const entry of timeline)
      for (const [name, m] of Object.entries(entry.metrics || {}))
        if (m.kind === 'counter' && m.count > 0 && !isServer(name) && name !== 'iteration.errors' && name !== 'iterations.dropped' &&
            (name.endsWith('.errors') || name.endsWith('.timeouts') || name === 'vu.crashes' || name === 'ws.disconnects'))
          names.add(name);
    return [...names].sort();
  }

  function thresholdLabel(t) {
    const limit = S.format.inUnit(t.limit, t.unit);
    const verdict = t.pass === true ? ' ✓' : t.pass === false ? ' ✗' : '';
    return `${t.aggregation} ≤ ${limit}${verdict}`;
  }

  // The charts for one scenario's timeline. `thresholds` are the scenario's threshold
  // results (after the run) or its declared thresholds (live, not judged yet). The time
  // axis runs from 0:00 to the end of the timeline, or to `plannedSeconds` when that is
  // later (live: the reader sees how much of the run is still to come).
  function chartSpecs(timeline, thresholds, plannedSeconds) {
    const axis = secondsAxis(timeline);
    axis.end = Math.max(plannedSeconds || 0, axis.x.length ? axis.x[axis.x.length - 1] : 1);
    const specs = [];
    const onMetric = (name, unitFilter) =>
      thresholds.filter((t) => t.metric === name && unitFilter(t)).map((t) => ({
        value: t.limit, label: thresholdLabel(t), pass: t.pass,
      }));

    for (const name of timingMetrics(timeline)) {
      const color = S.colors.forMetric(name);
      const pick = (key) => column(axis, (e) => (metricOf(e, name) || {})[key]);
      specs.push({
        id: 'latency:' + name,
        title: name,
        kind: 'latency',
        subtitle: 'latency p50 · p95 · p99',
        unit: 'ms',
        x: axis.x, xEnd: axis.end,
        series: [
          { label: 'p50', metric: name, color: color + '99', width: 1.25, values: pick('p50_ms') },
          { label: 'p95', metric: name, color, width: 2.25, values: pick('p95_ms') },
          { label: 'p99', metric: name, color, width: 1.5, dash: [6, 4], values: pick('p99_ms') },
        ],
        thresholds: onMetric(name, (t) => MS_AGGREGATIONS.includes(t.aggregation)),
      });
    }

    // Wider below the requests line: with one request per iteration the two coincide, and
    // the iterations then show as an edge around it.
    const throughput = [{
      label: 'iterations', metric: 'iterations', color: S.colors.forMetric('iterations'), width: 4,
      values: column(axis, (e) => (metricOf(e, 'iterations') || {}).rate ?? e.iterations),
    }];
    if (timeline.some((e) => (metricOf(e, 'http.request') || {}).count > 0))
      throughput.push({
        label: 'http.request', metric: 'http.request', color: S.colors.forMetric('http.request'), width: 1.75,
        values: column(axis, (e) => (metricOf(e, 'http.request') || {}).rate ?? 0),
      });
    specs.push({
      id: 'throughput', title: 'Throughput', kind: 'throughput', subtitle: 'finished per second', unit: 'per_second',
      x: axis.x, xEnd: axis.end, series: throughput,
      thresholds: throughput.flatMap((s) => onMetric(s.metric, (t) => t.unit === 'per_second')),
    });

    specs.push({
      id: 'vus', title: 'Virtual users', kind: 'vus', subtitle: 'live VUs at the end of each second', unit: 'count',
      x: axis.x, xEnd: axis.end,
      series: [{ label: 'vus', metric: 'vus', color: S.colors.forMetric('vus'), width: 2, fill: S.colors.forMetric('vus') + '22',
                 values: column(axis, (e) => e.vus) }],
      thresholds: [],
    });

    const errors = [
      { label: 'iteration.errors', metric: 'iteration.errors', color: S.colors.forMetric('iteration.errors'), width: 2,
        values: column(axis, (e) => (metricOf(e, 'iteration.errors') || {}).rate ?? e.errors) },
      { label: 'iterations.dropped', metric: 'iterations.dropped', color: S.colors.forMetric('iterations.dropped'), width: 2,
        values: column(axis, (e) => (metricOf(e, 'iterations.dropped') || {}).rate ?? e.dropped) },
      ...errorCounters(timeline).map((name) => ({
        label: name, metric: name, color: S.colors.forMetric(name), width: 1.5,
        values: column(axis, (e) => (metricOf(e, name) || {}).rate ?? 0),
      })),
    ];
    specs.push({
      id: 'errors', title: 'Errors and dropped iterations', kind: 'errors', subtitle: 'per second', unit: 'per_second',
      x: axis.x, xEnd: axis.end, series: errors,
      thresholds: errors.flatMap((s) => onMetric(s.metric, (t) => t.unit === 'per_second')),
    });
    return specs;
  }

  // --- The server's charts --------------------------------------------------------------
  // One chart per family of server series (the name before its labels), in the same seconds
  // as the load charts (the same axis, and the cursor moves on all of them together), so the
  // second a latency climbed lines up with the second the run queue did. A histogram shows
  // p50, p95 and p99 of the family as a whole, and, when it has label sets, the p95 of the
  // slowest of them; gauges a line per label set (a counter's is its rate per second).
  const SERVER_OWN = ['server.scrape', 'server.scrape.errors', 'server.series'];
  const MAX_SERVER_FAMILIES = 30;
  const MAX_LINES = 8;
  const familyOf = (name) => { const i = name.indexOf('{'); return i < 0 ? name : name.slice(0, i); };
  const labelsOf = (name) => { const i = name.indexOf('{'); return i < 0 ? '' : name.slice(i); };

  // family -> {kind, unit, names: Set}, for every server series the timeline holds.
  function serverFamilies(timeline) {
    const families = new Map();
    for (const entry of timeline)
      for (const [name, m] of Object.entries(entry.metrics || {})) {
        if (!isServer(name) || SERVER_OWN.includes(name)) continue;
        const family = familyOf(name);
        const f = families.get(family) || families.set(family, { kind: m.kind, unit: m.unit, names: new Set() }).get(family);
        f.names.add(name);
      }
    return new Map([...families.entries()].sort((a, b) => a[0].localeCompare(b[0])));
  }

  // The series of `names` with the highest values of `pick` first, at most `n`.
  function topSeries(timeline, names, pick, n) {
    const peak = new Map([...names].map((name) => [name, -Infinity]));
    for (const entry of timeline)
      for (const name of names) {
        const m = metricOf(entry, name);
        const v = m ? pick(m) : null;
        if (v !== null && v !== undefined && isFinite(v) && v > peak.get(name)) peak.set(name, v);
      }
    return [...peak.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, n).map(([name]) => name);
  }

  function serverChartSpecs(timeline, thresholds, plannedSeconds) {
    const axis = secondsAxis(timeline);
    axis.end = Math.max(plannedSeconds || 0, axis.x.length ? axis.x[axis.x.length - 1] : 1);
    const specs = [];
    const onMetric = (name, unitFilter) =>
      thresholds.filter((t) => t.metric === name && unitFilter(t)).map((t) => ({ value: t.limit, label: thresholdLabel(t), pass: t.pass }));
    const families = [...serverFamilies(timeline).entries()].slice(0, MAX_SERVER_FAMILIES);
    for (const [family, f] of families) {
      const title = family.slice('server.'.length);
      const color = S.colors.forMetric(family);
      if (f.kind === 'timing' || f.kind === 'distribution') {
        const timing = f.kind === 'timing';
        const unit = timing ? 'ms' : f.unit === 'bytes' ? 'bytes' : 'value';
        const key = (p) => (timing ? `p${p}_ms` : `p${p}`);
        const whole = f.names.has(family) ? family : [...f.names].sort()[0];
        const pick = (k) => column(axis, (e) => (metricOf(e, whole) || {})[k]);
        specs.push({
          id: 'server:' + family, title, kind: 'latency', unit, x: axis.x, xEnd: axis.end,
          subtitle: f.names.size > 1 ? 'p50 · p95 · p99, all label sets' : 'p50 · p95 · p99',
          series: [
            { label: 'p50', metric: whole, color: color + '99', width: 1.25, values: pick(key(50)) },
            { label: 'p95', metric: whole, color, width: 2.25, values: pick(key(95)) },
            { label: 'p99', metric: whole, color, width: 1.5, dash: [6, 4], values: pick(key(99)) },
          ],
          thresholds: onMetric(whole, (t) => MS_AGGREGATIONS.includes(t.aggregation)),
        });
        const labelled = [...f.names].filter((n) => n !== family);
        if (labelled.length > 1) {
          const top = topSeries(timeline, labelled, (m) => m[key(95)], MAX_LINES);
          specs.push({
            id: 'server-by:' + family, title, kind: 'server', unit, x: axis.x, xEnd: axis.end,
            subtitle: `p95 by label set${labelled.length > top.length ? `, the ${top.length} slowest of ${labelled.length}` : ''}`,
            series: top.map((name) => ({ label: labelsOf(name), metric: name, color: S.colors.forMetric(name), width: 1.5,
              values: column(axis, (e) => (metricOf(e, name) || {})[key(95)]) })),
            thresholds: top.flatMap((name) => onMetric(name, (t) => t.aggregation === 'p95')),
          });
        }
        continue;
      }
      if (f.kind !== 'gauge') continue;
      // A counter's series is its rate; a _bytes gauge a size; anything else a plain level.
      const rate = /_total$/.test(family) || /_count$/.test(family);
      const unit = rate ? 'per_second' : /_bytes$/.test(family) ? 'bytes' : 'value';
      const top = topSeries(timeline, f.names, (m) => m.max, MAX_LINES);
      specs.push({
        id: 'server:' + family, title, kind: 'server', unit, x: axis.x, xEnd: axis.end,
        subtitle: (rate ? 'per second' : 'level') + (f.names.size > top.length ? `, the ${top.length} highest of ${f.names.size}` : ''),
        series: top.map((name, i) => ({ label: labelsOf(name) || title, metric: name,
          color: top.length === 1 ? color : S.colors.forMetric(name), width: i === 0 ? 2 : 1.5,
          values: column(axis, (e) => (metricOf(e, name) || {}).last) })),
        thresholds: top.flatMap((name) => onMetric(name, (t) => t.aggregation === 'max')),
      });
    }
    // How the scrapes went: their time, and the failed ones.
    if (timeline.some((e) => (metricOf(e, 'server.scrape') || {}).count > 0)) {
      const color = S.colors.forMetric('server.scrape');
      const pick = (k) => column(axis, (e) => (metricOf(e, 'server.scrape') || {})[k]);
      specs.push({
        id: 'server:scrape', title: 'scrapes', kind: 'latency', unit: 'ms', x: axis.x, xEnd: axis.end,
        subtitle: 'how long a scrape took: p50 · max',
        series: [
          { label: 'p50', metric: 'server.scrape', color: color + '99', width: 1.25, values: pick('p50_ms') },
          { label: 'max', metric: 'server.scrape', color, width: 2, values: pick('max_ms') },
        ],
        thresholds: onMetric('server.scrape', (t) => MS_AGGREGATIONS.includes(t.aggregation)),
      });
    }
    if (timeline.some((e) => (metricOf(e, 'server.scrape.errors') || {}).count > 0)) {
      specs.push({
        id: 'server:scrape-errors', title: 'scrape errors', kind: 'errors', unit: 'per_second', x: axis.x, xEnd: axis.end,
        subtitle: 'failed scrapes per second (the reasons are in the table below)',
        series: [{ label: 'server.scrape.errors', metric: 'server.scrape.errors', color: S.colors.threshold, width: 2,
          values: column(axis, (e) => (metricOf(e, 'server.scrape.errors') || {}).rate ?? 0) }],
        thresholds: onMetric('server.scrape.errors', (t) => t.unit === 'per_second'),
      });
    }
    return specs;
  }

  const AXIS_LABEL = { ms: 'latency (ms)', per_second: 'per second', count: 'VUs', bytes: 'bytes', value: 'value' };

  function tickText(value) {
    if (Math.abs(value) >= 1000) return S.format.count(value);
    return String(+value.toFixed(3));
  }

  // Sizes as short sizes ("20 MB", "2.5 GB"): "20,000,000" ran into the axis' label.
  function tickBytes(value) {
    const units = ['B', 'kB', 'MB', 'GB', 'TB'];
    let v = value, i = 0;
    while (Math.abs(v) >= 1000 && i + 1 < units.length) { v /= 1000; i++; }
    return `${+v.toFixed(1)} ${units[i]}`;
  }

  function seriesValue(unit) {
    return (u, v) => {
      // Empty when the cursor is off the chart: the legend then reads as a key.
      if (v === null || v === undefined) return '';
      if (unit === 'ms') return S.format.ms(v);
      if (unit === 'per_second') return S.format.rate(v);
      if (unit === 'bytes') return S.format.bytes(v);
      if (unit === 'value') return S.format.number(v);
      return S.format.count(v);
    };
  }

  // Thresholds far above the data would squash the lines into the floor: those stay off
  // the scale and are noted at the top edge instead.
  const SCALE_HEADROOM = 4;

  // The spec a chart was last updated with (the options' closures outlive the first one).
  const currentSpec = (u, first) => u.stampedeSpec || first;

  function drawThresholds(first) {
    return (u) => {
      const spec = currentSpec(u, first);
      if (!spec.thresholds.length) return;
      const ctx = u.ctx;
      const { left, top, width } = u.bbox;
      const ratio = window.devicePixelRatio || 1;
      ctx.save();
      ctx.font = `${Math.round(11 * ratio)}px system-ui, -apple-system, "Segoe UI", sans-serif`;
      ctx.textAlign = 'right';
      let offTop = 0;
      for (const t of spec.thresholds) {
        const color = t.pass === true ? S.colors.thresholdPassed : t.pass === false ? S.colors.threshold : S.colors.thresholdLive;
        const yMax = u.scales.y.max;
        const above = t.value > yMax;
        const y = above ? top + (12 + offTop * 14) * ratio : Math.round(u.valToPos(t.value, 'y', true));
        if (above) offTop++;
        ctx.fillStyle = color;
        ctx.strokeStyle = color;
        if (!above) {
          ctx.lineWidth = 1.5 * ratio;
          ctx.setLineDash([8 * ratio, 5 * ratio]);
          ctx.beginPath();
          ctx.moveTo(left, y);
          ctx.lineTo(left + width, y);
          ctx.stroke();
          ctx.setLineDash([]);
        }
        const text = (above ? '↑ ' : '') + t.label;
        const textY = above ? y : y - 4 * ratio;
        // A light backing keeps the label readable over the lines it crosses.
        const w = ctx.measureText(text).width;
        ctx.fillStyle = 'rgba(255,255,255,0.85)';
        ctx.fillRect(left + width - w - 8 * ratio, textY - 11 * ratio, w + 6 * ratio, 14 * ratio);
        ctx.fillStyle = color;
        ctx.fillText(text, left + width - 5 * ratio, textY);
      }
      ctx.restore();
    };
  }

  function plotOptions(spec, width) {
    return {
      width,
      height: CHART_HEIGHT,
      scales: {
        x: { time: false, range: (u) => [0, currentSpec(u, spec).xEnd] },
        y: {
          range: (u, min, max) => {
            let top = Math.max(max || 0, 0);
            for (const t of currentSpec(u, spec).thresholds)
              if (t.value <= Math.max(top, 1e-9) * SCALE_HEADROOM) top = Math.max(top, t.value);
            if (top <= 0) top = 1;
            return [0, top * 1.12];
          },
        },
      },
      axes: [
        {
          label: 'elapsed (m:ss)', labelSize: 22, labelFont: '12px system-ui, sans-serif',
          font: '11px system-ui, sans-serif', stroke: '#4b5563',
          grid: { stroke: '#eceef2', width: 1 }, ticks: { stroke: '#d8dbe1', width: 1 },
          incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200],
          values: (u, splits) => splits.map((v) => S.format.clock(v)),
        },
        {
          label: AXIS_LABEL[spec.unit], labelSize: 22, labelFont: '12px system-ui, sans-serif',
          font: '11px system-ui, sans-serif', stroke: '#4b5563', size: 56,
          grid: { stroke: '#eceef2', width: 1 }, ticks: { stroke: '#d8dbe1', width: 1 },
          values: (u, splits) => splits.map(spec.unit === 'bytes' ? tickBytes : tickText),
        },
      ],
      series: [
        { label: 'elapsed', value: (u, v) => (v === null || v === undefined ? '' : S.format.clock(v)) },
        ...spec.series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: s.width,
          dash: s.dash,
          fill: s.fill,
          spanGaps: false,
          // A lone second has no line to draw: mark it.
          points: { show: (u, seriesIdx, i0, i1) => i1 === i0, size: 6 },
          value: seriesValue(spec.unit),
        })),
      ],
      cursor: { sync: { key: 'stampede-timeline' }, points: { size: 7 } },
      legend: { live: true },
      hooks: { draw: [drawThresholds(spec)] },
    };
  }

  function plotData(spec) {
    return [spec.x, ...spec.series.map((s) => s.values)];
  }

  function signature(spec) {
    return spec.series.map((s) => s.label).join('|') + '#' + spec.thresholds.map((t) => t.label).join('|');
  }

  // A grid of chart cards that can be redrawn with a longer timeline (the dashboard does,
  // every second) without rebuilding the charts that did not change shape.
  class ChartGrid {
    // `specsOf(timeline, thresholds, plannedSeconds)`: the charts to draw (the load's by default).
    constructor(container, specsOf = chartSpecs) {
      this.container = container;
      this.specsOf = specsOf;
      this.cards = new Map();  // id -> {card, body, plot, spec, signature}
      this.resizer = new ResizeObserver(() => this.resize());
      ChartGrid.all.push(this);
    }

    update(timeline, thresholds, plannedSeconds) {
      const specs = this.specsOf(timeline, thresholds, plannedSeconds);
      for (const spec of specs) {
        let entry = this.cards.get(spec.id);
        const sig = signature(spec);
        if (entry && entry.signature !== sig) {
          entry.plot.destroy();
          entry.plot = null;
        }
        if (!entry) {
          const body = S.el('div', { class: 'chart-body' });
          const swatch = spec.kind === 'latency' ? S.el('span', { class: 'swatch', style: { background: spec.series[spec.series.length > 2 ? 1 : 0].color } }) : null;
          const card = S.el('figure', { class: 'chart-card', data: { chart: spec.id } },
            S.el('figcaption', {}, swatch, S.el('span', { class: 'chart-title' }, spec.title),
                 S.el('span', { class: 'chart-subtitle' }, spec.subtitle)),
            body);
          entry = { card, body, plot: null };
          this.cards.set(spec.id, entry);
          // A card's width changes with the window and when a chart joins the grid.
          this.resizer.observe(body);
        }
        entry.spec = spec;
        entry.signature = sig;
        if (entry.plot) entry.plot.stampedeSpec = spec;
        this.container.append(entry.card);  // keeps the cards in the specs' order
        if (!entry.plot) entry.plot = new uPlot(plotOptions(spec, this.width(entry.body)), plotData(spec), entry.body);
        else entry.plot.setData(plotData(spec));
      }
    }

    // Removes the charts (the dashboard replaces its live grid with the final one).
    dispose() {
      this.resizer.disconnect();
      for (const entry of this.cards.values()) if (entry.plot) entry.plot.destroy();
      this.cards.clear();
      ChartGrid.all = ChartGrid.all.filter((grid) => grid !== this);
    }

    width(body) {
      return Math.max(280, Math.floor(body.clientWidth || this.container.clientWidth / 2 - 24));
    }

    resize() {
      for (const entry of this.cards.values())
        if (entry.plot) {
          const width = this.width(entry.body);
          if (Math.abs(width - entry.plot.width) > 1) entry.plot.setSize({ width, height: CHART_HEIGHT });
        }
    }

    // What the charts hold, for tests and for anyone poking at the page: per chart, its
    // series and how many points each has.
    describe() {
      return [...this.cards.values()].map(({ spec, plot }) => ({
        id: spec.id,
        title: spec.title,
        // The time axis: its end, and the seconds on it; where the cursor is (every chart's
        // cursor moves together).
        xEnd: spec.xEnd,
        seconds: spec.x.length,
        cursor: plot && plot.cursor.idx !== undefined ? plot.cursor.idx : null,
        thresholds: spec.thresholds.map((t) => t.label),
        series: spec.series.map((s, i) => ({
          label: s.label,
          points: plot ? plot.data[i + 1].filter((v) => v !== null && v !== undefined).length : 0,
        })),
      }));
    }
  }
  ChartGrid.all = [];

  S.charts = {
    ChartGrid,
    chartSpecs,
    serverChartSpecs,
    serverFamilies,
    isServer,
    describeAll: () => ChartGrid.all.flatMap((grid) => grid.describe()),
  };
})(window.Stampede);
