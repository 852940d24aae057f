// Shared by the report and the dashboard: how numbers read, which colour a metric has, and
// the one way this page puts text into the document (textContent, never HTML: scenario
// names, metric names and error messages come from scenarios and servers).
'use strict';
window.Stampede = window.Stampede || {};

(function (S) {
  const number = new Intl.NumberFormat('en-US');
  const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });

  function significant(value, digits) {
    return Number(value.toPrecision(digits)).toString();
  }

  S.format = {
    // 0.42 -> "420 µs", 10.72 -> "10.7 ms", 1234 -> "1.23 s"
    ms(value) {
      if (value === null || value === undefined || !isFinite(value)) return '–';
      if (value === 0) return '0 ms';
      if (value < 1) return significant(value * 1000, 3) + ' µs';
      if (value < 1000) return significant(value, 3) + ' ms';
      return significant(value / 1000, 3) + ' s';
    },
    count(value) {
      if (value === null || value === undefined || !isFinite(value)) return '–';
      return number.format(Math.round(value));
    },
    rate(value) {
      if (value === null || value === undefined || !isFinite(value)) return '–';
      return (value >= 100 ? number.format(Math.round(value)) : oneDecimal.format(value)) + '/s';
    },
    percent(ratio) {
      if (ratio === null || ratio === undefined || !isFinite(ratio)) return '–';
      return (ratio * 100).toFixed(ratio === 1 || ratio === 0 ? 0 : 2) + '%';
    },
    // Elapsed seconds on a time axis: 75 -> "1:15", 3725 -> "1:02:05".
    clock(seconds) {
      const s = Math.max(0, Math.round(seconds));
      const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
      const two = (n) => String(n).padStart(2, '0');
      return h > 0 ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
    },
    // A duration in ms for sentences: "15.0 s", "2 min 30 s".
    duration(ms) {
      if (ms === null || ms === undefined || !isFinite(ms)) return '–';
      const seconds = ms / 1000;
      if (seconds < 60) return seconds.toFixed(1) + ' s';
      const m = Math.floor(seconds / 60), s = Math.round(seconds % 60);
      if (m < 60) return s ? `${m} min ${s} s` : `${m} min`;
      return `${Math.floor(m / 60)} h ${m % 60} min`;
    },
    // 1536 -> "1.54 kB" (decimal units, as the terminal summary prints them)
    bytes(value) {
      if (value === null || value === undefined || !isFinite(value)) return '–';
      const units = ['B', 'kB', 'MB', 'GB'];
      let v = value, i = 0;
      while (Math.abs(v) >= 999.995 && i + 1 < units.length) { v /= 1000; i++; }
      return (i === 0 ? number.format(Math.round(v)) : v.toFixed(2)) + ' ' + units[i];
    },
    // A plain value of any size, as a server gauge reads: 0.934 -> "0.934", 12.5 -> "12.5",
    // 73400320 -> "73,400,320".
    number(value) {
      if (value === null || value === undefined || !isFinite(value)) return '–';
      if (Math.abs(value) >= 1000) return number.format(Math.round(value));
      return String(Number(value.toPrecision(3)));
    },
    // A distribution's value in its unit ("bytes" or "number").
    value(value, unit) {
      return unit === 'bytes' ? S.format.bytes(value) : S.format.count(value);
    },
    // A threshold's limit or value in its unit ("ms", "count", "per_second", "ratio").
    inUnit(value, unit) {
      switch (unit) {
        case 'ms': return S.format.ms(value);
        case 'per_second': return S.format.rate(value);
        case 'ratio': return S.format.percent(value);
        default: return S.format.count(value);
      }
    },
  };

  // One colour per metric, the same in every chart and table: a metric's latency and its
  // throughput share it (iteration / iterations, http.request / requests).
  const fixed = {
    'iteration': '#3b6fb6',
    'iterations': '#3b6fb6',
    'http.request': '#2f9e6e',
    'requests': '#2f9e6e',
    'vus': '#7c5cc4',
    'iteration.errors': '#d64545',
    'iterations.dropped': '#e8890c',
    'iteration.lag': '#8c6d4f',
    'http.request.errors': '#c2417f',
  };
  const palette = ['#1f8fb3', '#b5651d', '#5b8c2a', '#a33ea1', '#c9a227', '#4a5bd4', '#d4604a', '#2a9d8f', '#8a5a9e', '#6b7f2e'];

  S.colors = {
    forMetric(name) {
      if (fixed[name]) return fixed[name];
      // http.request.<name> rows read as part of the http.request family: a hue of their own,
      // picked from the name so it is the same on every page and every run.
      let hash = 2166136261;
      for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
      return palette[(hash >>> 0) % palette.length];
    },
    threshold: '#c62828',        // failed
    thresholdPassed: '#6b7280',  // passed: still drawn, quieter
    thresholdLive: '#334155',    // not judged yet (the dashboard during a run)
  };

  // el('td', {class: 'num', data: {metric: name}}, 'text', childNode, ...): strings become
  // text nodes, so whatever a string holds is shown as it is.
  S.el = function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'data') for (const [k, v] of Object.entries(value)) node.dataset[k] = v;
      else if (key === 'style') for (const [k, v] of Object.entries(value)) node.style.setProperty(k, v);
      else node.setAttribute(key, value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
    }
    return node;
  };
})(window.Stampede);
