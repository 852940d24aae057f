// An independent Server-Sent Events server for Stampede's SSE client tests, on Node's own
// `http` module (chunked responses, as Express and most Node apps send them).
//
//   node tests/js/sse_server.js PORT [--tls KEY CERT]   (0 picks a free port; prints "listening <port>")
//
// With --tls it serves HTTPS (Node's `https`) with that key and certificate.
//
// Well-behaved routes:
//   /events?count=N&retry=MS&event=T&rate=R
//       N events (default 3) then the response ends; retry: first when given; each event has
//       id: <n> (continuing after the request's Last-Event-ID), event: T when given, and two
//       data lines ("n=<n>" and "line two"). rate: events per second (default: all at once).
//       count=0: endless.
//   /crlf       a BOM, CRLF and lone CR line endings, comments, a field without a colon
//   /stats      what the server saw: the Last-Event-ID of every /events request, in order
// Misbehaving routes (each must cost the client an error with a reason, never a hang):
//   /garbage    bytes that are not HTTP, then the connection closes
//   /early-close the connection closes before any answer
//   /stall      the request is never answered
//   /stall-body  the head is sent, then nothing, for ever
//   /text       200 with Content-Type text/plain
//   /status500  a 500
//   /truncated  one whole event, then half an event, then the end of the response
//   /huge       one event of 2 MiB
'use strict';

const fs = require('fs');
const http = require('http');
const https = require('https');

const port = Number(process.argv[2]);
const seen = [];

function eventStream(res) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
}

const tlsAt = process.argv.indexOf('--tls');
const create = tlsAt > 0
  ? (handler) => https.createServer({ key: fs.readFileSync(process.argv[tlsAt + 1]),
    cert: fs.readFileSync(process.argv[tlsAt + 2]) }, handler)
  : (handler) => http.createServer(handler);

const server = create((req, res) => {
  const url = new URL(req.url, 'http://x');
  const q = url.searchParams;
  switch (url.pathname) {
    case '/events': {
      seen.push(req.headers['last-event-id'] ?? null);
      const count = Number(q.get('count') ?? 3);
      const rate = Number(q.get('rate') ?? 0);
      let id = Number(req.headers['last-event-id'] ?? 0);
      eventStream(res);
      if (q.has('retry')) res.write(`retry: ${q.get('retry')}\n\n`);
      let sent = 0;
      const one = () => {
        id += 1;
        sent += 1;
        const type = q.has('event') ? `event: ${q.get('event')}\n` : '';
        res.write(`id: ${id}\n${type}data: n=${id}\ndata: line two\n\n`);
      };
      if (rate > 0) {
        const timer = setInterval(() => {
          if (res.destroyed) return clearInterval(timer);
          one();
          if (count !== 0 && sent >= count) {
            clearInterval(timer);
            res.end();
          }
        }, 1000 / rate);
        req.on('close', () => clearInterval(timer));
      } else {
        while (sent < count) one();
        res.end();
      }
      return;
    }
    case '/crlf':
      eventStream(res);
      res.write('\ufeff: a comment\r\nevent: first\r\ndata: one\r\n\r\n');
      res.write('data: two\rdata: two b\r\rdata\r\n\r\nid: 9\ndata: three\n\n');
      return res.end();
    case '/stats':
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ last_event_ids: seen }));
    case '/garbage':
      req.socket.end('SSE? never heard of it\r\n\r\n');
      return;
    case '/early-close':
      req.socket.destroy();
      return;
    case '/stall':
      return;
    case '/stall-body':
      eventStream(res);
      res.flushHeaders();
      return;
    case '/text':
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return res.end('data: not a stream\n\n');
    case '/status500':
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      return res.end('boom');
    case '/truncated':
      eventStream(res);
      res.write('id: 1\ndata: whole\n\n');
      res.write('id: 2\ndata: half');
      return res.end();
    case '/huge':
      eventStream(res);
      res.write('data: ' + 'x'.repeat(2 * 1024 * 1024) + '\n\n');
      return;
    default:
      res.writeHead(404);
      return res.end();
  }
});

server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
