// Cross-checks an event stream with the npm `eventsource` client (the WHATWG EventSource for
// Node): connects to URL, collects events until it has N of them (across reconnections), and
// prints them as JSON with the readyState changes it saw. Exits 1 on a timeout or an error
// that closes the source.
//
//   node tests/js/eventsource_check.js URL N [TIMEOUT_MS]
'use strict';

const { EventSource } = require('eventsource');

const [url, wanted, timeoutMs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4] ?? 10000)];
const events = [];
let opens = 0;
const source = new EventSource(url);
const timer = setTimeout(() => {
  console.log(JSON.stringify({ error: 'timeout', events, opens }));
  process.exit(1);
}, timeoutMs);
source.onopen = () => { opens += 1; };
const record = (e) => {
  events.push({ type: e.type, data: e.data, lastEventId: e.lastEventId });
  if (events.length >= wanted) {
    clearTimeout(timer);
    source.close();
    console.log(JSON.stringify({ events, opens }));
  }
};
source.onmessage = record;
for (const type of (process.argv[5] ?? '').split(',').filter(Boolean)) source.addEventListener(type, record);
source.onerror = () => {
  if (source.readyState === EventSource.CLOSED) {
    clearTimeout(timer);
    console.log(JSON.stringify({ error: 'closed', events, opens }));
    process.exit(1);
  }
};
