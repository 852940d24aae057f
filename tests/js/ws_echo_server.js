// An independent WebSocket peer for Stampede's client tests, built on the npm `ws` package.
//
//   node tests/js/ws_echo_server.js PORT [--compress]
//
// PORT 0 picks a free port. Prints "listening <port>" once ready. With --compress it accepts
// permessage-deflate and compresses every message (threshold 0), so small messages too.
//
// It echoes text and binary messages, except these text commands:
//   close-me        closes the connection with code 4000, reason "as you asked"
//   ping-me         sends a ping "hello"; the pong that comes back is reported as the text
//                   message "pong:<payload>"
//   big N           sends an N-byte binary message
//   fragments N T   sends text T in N fragments (one frame per piece)
'use strict';

const { WebSocketServer } = require('ws');

const port = Number(process.argv[2]);
const compress = process.argv.includes('--compress');
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: node ws_echo_server.js PORT [--compress]');
  process.exit(2);
}

const server = new WebSocketServer({
  host: '127.0.0.1',
  port,
  perMessageDeflate: compress ? { threshold: 0 } : false,
  maxPayload: 64 * 1024 * 1024,
});

server.on('listening', () => {
  console.log(`listening ${server.address().port}`);
});

server.on('connection', (socket) => {
  socket.on('pong', (data) => socket.send(`pong:${data.toString()}`));
  socket.on('message', (data, isBinary) => {
    if (!isBinary) {
      const text = data.toString();
      if (text === 'close-me') return socket.close(4000, 'as you asked');
      if (text === 'ping-me') return socket.ping('hello');
      const big = /^big (\d+)$/.exec(text);
      if (big) return socket.send(Buffer.alloc(Number(big[1]), 0x61), { binary: true });
      const fragments = /^fragments (\d+) (.*)$/s.exec(text);
      if (fragments) {
        const pieces = Number(fragments[1]);
        const body = Buffer.from(fragments[2]);
        const size = Math.ceil(body.length / pieces);
        for (let i = 0; i < pieces; i++) {
          socket.send(body.subarray(i * size, (i + 1) * size), { binary: false, fin: i === pieces - 1 });
        }
        return;
      }
    }
    socket.send(data, { binary: isBinary });
  });
});

// The test stops us with SIGTERM; exit without a stack trace.
process.on('SIGTERM', () => {
  server.close();
  process.exit(0);
});
