// An independent Socket.IO server (the npm socket.io 4 package) for Stampede's client tests.
//
//   node tests/js/socketio_server.js PORT [--ping-interval MS --ping-timeout MS]
//                                         (0 picks a free port; prints "listening <port>")
//
// Namespaces "/" and "/chat" (the latter refuses auth {token: "bad"} with CONNECT_ERROR
// "not authorized"). Events, on either:
//   message (data, ack?)  emits "message" with data back to the sender; acks {ok: true, echo: data}
//   sum (a, b, ack)       acks a + b
//   binary (bytes, ack)   acks {size, first} and emits "binary" with the bytes reversed
//   multi ()              emits "multi" with three arguments: 1, "two", {three: 3}
//   ask ()                emits "question" asking for an ack; once acked, emits "answered" with the ack's arguments
//   kick ()               the server disconnects this socket (DISCONNECT: "io server disconnect")
//   broadcast (data)      emits "news" with data to every socket of the namespace
//   ticks (ms)            emits "tick" with a counter to this socket every ms, until it disconnects
// /stats (HTTP GET): {connections, sockets: {"/": n, "/chat": n}} now.
// Misbehaving Engine.IO endpoints, reached with the client's path option:
//   /garbage/   answers the WebSocket with text that is not Engine.IO
//   /silent/    never sends the open packet
//   /noping/    a valid open packet (pingInterval 200, pingTimeout 100), then never a ping
//   /badsio/    answers CONNECT with a Socket.IO packet that does not decode
//   /drop/      closes the TCP connection right after the open packet
'use strict';

const http = require('http');
const { Server } = require('socket.io');
const { WebSocketServer } = require('ws');

const port = Number(process.argv[2]);
const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};

const server = http.createServer((req, res) => {
  if (req.url === '/stats') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify({
      connections: io.engine.clientsCount,
      sockets: { '/': io.of('/').sockets.size, '/chat': io.of('/chat').sockets.size },
    }));
  }
});
const io = new Server(server, {
  pingInterval: flag('--ping-interval', 25000),
  pingTimeout: flag('--ping-timeout', 20000),
  maxHttpBufferSize: 1e7,
  destroyUpgrade: false,
});

function handlers(nsp) {
  nsp.on('connection', (socket) => {
    socket.on('message', (data, ack) => {
      socket.emit('message', data);
      if (typeof ack === 'function') ack({ ok: true, echo: data });
    });
    socket.on('sum', (a, b, ack) => ack(a + b));
    socket.on('binary', (bytes, ack) => {
      if (typeof ack === 'function') ack({ size: bytes.length, first: bytes[0] });
      socket.emit('binary', Buffer.from(bytes).reverse());
    });
    socket.on('multi', () => socket.emit('multi', 1, 'two', { three: 3 }));
    socket.on('ask', () => socket.emit('question', 'what?', (...answer) => socket.emit('answered', ...answer)));
    socket.on('kick', () => socket.disconnect(true));
    socket.on('broadcast', (data) => nsp.emit('news', data));
    socket.on('ticks', (ms) => {
      let n = 0;
      const timer = setInterval(() => socket.emit('tick', n++), ms);
      socket.on('disconnect', () => clearInterval(timer));
    });
  });
}
handlers(io.of('/'));
const chat = io.of('/chat');
chat.use((socket, next) => (socket.handshake.auth?.token === 'bad' ? next(new Error('not authorized')) : next()));
handlers(chat);

// The misbehaving endpoints speak raw WebSocket, outside socket.io.
const raw = new WebSocketServer({ noServer: true });
raw.on('connection', (ws, req) => {
  const path = new URL(req.url, 'http://x').pathname;
  const open = (interval, timeout) =>
    ws.send('0' + JSON.stringify({ sid: 'raw', upgrades: [], pingInterval: interval, pingTimeout: timeout, maxPayload: 1e6 }));
  if (path === '/garbage/') ws.send('this is not engine.io');
  if (path === '/noping/') open(200, 100);
  if (path === '/drop/') {
    open(25000, 20000);
    setTimeout(() => ws._socket.destroy(), 20);
  }
  if (path === '/badsio/') {
    open(25000, 20000);
    ws.on('message', (data) => { if (data.toString().startsWith('40')) ws.send('49nonsense'); });
  }
  // /silent/: nothing at all
});
server.on('upgrade', (req, socket, head) => {
  const path = new URL(req.url, 'http://x').pathname;
  if (path.startsWith('/socket.io/')) return;  // socket.io's own
  raw.handleUpgrade(req, socket, head, (ws) => raw.emit('connection', ws, req));
});

server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
