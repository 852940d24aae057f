// Reference events for tests/unit/proto/event_stream_test.cpp, from eventsource-parser (the
// parser inside the npm `eventsource` package; versions in package.json). Run from a scratch
// directory that has them installed, never from the repo:
//   npm install --prefix /tmp/vectors eventsource@4.1.1 eventsource-parser@3.1.1
//   NODE_PATH=/tmp/vectors/node_modules node generate.cjs
// Each stream is fed whole, then byte by byte; both must give the same events. Prints one
// JSON object per line: the stream, the events (type as `eventsource` dispatches it, data,
// the block's own id) and the retry values.
const { createParser } = require("eventsource-parser");

const streams = [
  "data: simple\n\n",
  "data: first line\ndata: second line\n\n",
  "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\n",
  ": a comment\ndata:no space\ndata:  two spaces\n\n",
  "data\ndata\n\n",
  "data:\n\n",
  "data: a\r\ndata: b\r\n\r\n",
  // eventsource-parser holds a CR that ends its input until the next byte says whether an LF
  // follows; the comment after the blank line lets it dispatch.
  "data: a\rdata: b\r\r: next\n",
  "data: a\r\n\rdata: b\n\r\n",
  "event: x\n\ndata: after an event without data\n\n",
  "data: no blank line at the end",
  "retry: 10000\ndata: r\n\nretry: one thousand\nretry\nretry: 7\n\n",
  "id: 1\ndata: id is 1\n\ndata: no id field\n\nid\ndata: id emptied\n\n",
  "field: unknown\nDATA: upper case is another field\ndata : space before the colon\ndata:kept\n\n",
  "data: a:b:c\nevent:  spaced\n\n",
];

const seen = (stream, chunks) => {
  const events = [];
  const retries = [];
  const parser = createParser({
    onEvent: (e) => events.push({ type: e.event || "message", data: e.data, id: e.id === undefined ? null : e.id }),
    onRetry: (r) => retries.push(r),
  });
  for (const c of chunks) parser.feed(c);
  return { events, retries };
};

for (const stream of streams) {
  const whole = seen(stream, [stream]);
  const bytewise = seen(stream, [...stream]);
  if (JSON.stringify(whole) !== JSON.stringify(bytewise)) throw new Error("chunking changed the events of " + JSON.stringify(stream));
  console.log(JSON.stringify({ stream, ...whole }));
}
