// An independent HTTP/2 peer for Stampede's client tests, on Node's core `http2` module.
//
//   node tests/js/h2_server.js PORT [--tls CERT KEY] [--max-streams N]
//
// PORT 0 picks a free port. Prints "listening <port>" once ready. Without --tls it speaks
// cleartext HTTP/2 with prior knowledge (h2c); with --tls it is an HTTPS server that speaks
// HTTP/2 only ("h2" by ALPN). --max-streams sets SETTINGS_MAX_CONCURRENT_STREAMS.
//
// Paths (the query holds the parameters):
//   /echo            200, JSON: method, path, the request's headers, body length, the HTTP version
//   /big?bytes=N     200 with N bytes of body (flow control: past every window)
//   /gzip            200, a gzip-encoded text ("compressed " x 1000)
//   /cookie          200 with Set-Cookie: h2=yes
//   /redirect?to=P   302 to P
//   /slow?ms=N       200 after N ms; counts how many /slow streams are open at once (see /stats)
//   /stats           200, JSON: {"max_open_slow": n} since the start (and resets it)
//   /stall           never answers
//   /rst?code=N      resets the stream with RST_STREAM code N
//   /goaway?code=N&times=K  the first K (default 1): GOAWAY with code N and the stream before
//                    this one as the last, the connection closed 100 ms later; then 200
//   /destroy         closes the connection at once, without GOAWAY
//   /upload          (POST) 200, JSON: the body's length and a checksum of its bytes
'use strict';

const http2 = require('http2');
const fs = require('fs');
const zlib = require('zlib');

const args = process.argv.slice(2);
const port = Number(args[0]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: node h2_server.js PORT [--tls CERT KEY] [--max-streams N]');
  process.exit(2);
}
const option = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args.slice(i + 1);
};

const settings = {};
const maxStreams = option('--max-streams');
if (maxStreams) settings.maxConcurrentStreams = Number(maxStreams[0]);
const tls = option('--tls');

const server = tls
  ? http2.createSecureServer({
      cert: fs.readFileSync(tls[0]),
      key: fs.readFileSync(tls[1]),
      settings,
    })
  : http2.createServer({ settings });

// The connections' sockets, to close one without the GOAWAY Node's own close would send
// (an HTTP/2 session's socket may not be touched through the session).
const sockets = new Set();
server.on('connection', (socket) => {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
});
const rawSocketOf = (session) => {
  for (const socket of sockets) {
    if (socket.remotePort === session.socket.remotePort) return socket;
  }
  return { destroy: () => session.destroy() };
};

let goaways = 0;
let openSlow = 0;
let maxOpenSlow = 0;
const gzipped = zlib.gzipSync(Buffer.from('compressed '.repeat(1000)));

server.on('stream', (stream, headers) => {
  const url = new URL(headers[':path'], 'http://local');
  const query = url.searchParams;
  const send = (status, body, extra = {}) => {
    stream.respond({ ':status': status, ...extra });
    stream.end(body);
  };
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  stream.on('error', () => {});
  stream.on('end', () => {
    const body = Buffer.concat(chunks);
    switch (url.pathname) {
      case '/echo': {
        const copy = {};
        for (const [name, value] of Object.entries(headers)) copy[name] = value;
        send(200, JSON.stringify({ method: headers[':method'], path: headers[':path'], headers: copy,
                                   body_length: body.length, version: '2.0' }),
             { 'content-type': 'application/json' });
        break;
      }
      case '/big': {
        const n = Number(query.get('bytes'));
        const out = Buffer.alloc(n);
        for (let i = 0; i < n; i += 1) out[i] = 97 + (i % 26);
        send(200, out);
        break;
      }
      case '/gzip':
        send(200, gzipped, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
        break;
      case '/cookie':
        send(200, 'ok', { 'set-cookie': 'h2=yes; Path=/' });
        break;
      case '/redirect':
        send(302, '', { location: query.get('to') });
        break;
      case '/slow': {
        openSlow += 1;
        maxOpenSlow = Math.max(maxOpenSlow, openSlow);
        const done = () => { openSlow -= 1; };
        setTimeout(() => {
          done();
          if (!stream.destroyed) send(200, 'slow');
        }, Number(query.get('ms') || 50));
        break;
      }
      case '/stats':
        send(200, JSON.stringify({ max_open_slow: maxOpenSlow }));
        maxOpenSlow = 0;
        break;
      case '/stall':
        break;
      case '/rst':
        stream.close(Number(query.get('code')));
        break;
      case '/goaway': {
        // The first `times` requests (default 1) get a GOAWAY that leaves their stream out
        // (its last stream id is the one before); the connection closes 100 ms later. Later
        // requests are answered: that is where a retried request lands.
        goaways += 1;
        if (goaways > Number(query.get('times') || 1)) {
          send(200, 'after goaway');
          break;
        }
        const session = stream.session;
        session.goaway(Number(query.get('code')), stream.id - 2);
        setTimeout(() => rawSocketOf(session).destroy(), 100);
        break;
      }
      case '/destroy':
        rawSocketOf(stream.session).destroy();
        break;
      case '/upload': {
        let sum = 0;
        for (const byte of body) sum = (sum * 31 + byte) % 1000000007;
        send(200, JSON.stringify({ length: body.length, checksum: sum }), { 'content-type': 'application/json' });
        break;
      }
      default:
        send(404, 'not found');
    }
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
