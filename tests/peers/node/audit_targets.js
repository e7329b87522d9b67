// HTTP limiters for the audit tests (tests/app/test_cli_audit.cpp), each keyed
// by the x-api-key header, listening on a free loopback port it prints as
// `listening <port>` once ready:
//
//   node audit_targets.js express <draft-8|draft-7|draft-6|legacy> <limit> <windowMs> <redisPort>
//       express 5 + express-rate-limit 8 + rate-limit-redis (ioredis)
//   node audit_targets.js fastify <limit> <windowMs> <redisPort>
//       fastify 5 + @fastify/rate-limit 11 with Redis (ioredis)
//   node audit_targets.js naive <limit> <windowMs> <redisPort>
//       the test's own check-then-increment limiter: GET, decide, then INCR in a
//       second round trip, 25 ms of handler work apart (concurrent requests all
//       pass the check, whatever the machine's load)
//   node audit_targets.js retry-ms <limit> <windowMs>
//       an in-memory fixed window whose Retry-After is in milliseconds
//   node audit_targets.js chunked <limit> <windowMs>
//       an in-memory fixed window that answers with Transfer-Encoding: chunked
//   node audit_targets.js split <limit> <windowMs> <once|always>
//       an in-memory fixed window whose window resets right after a key's first
//       deny, as a window boundary falling inside a concurrent round does: for
//       the first key only (once) or for every key (always)
'use strict';

const http = require('node:http');

const [mode, ...args] = process.argv.slice(2);
const keyOf = (headers) => String(headers['x-api-key'] || 'anonymous');
const ready = (server) => server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));

function redisClient(port) {
  const Redis = require('ioredis');
  return new Redis({ host: '127.0.0.1', port: Number(port), lazyConnect: false, maxRetriesPerRequest: 1 });
}

function express(standard, limit, windowMs, redisPort) {
  const app = require('express')();
  const { rateLimit } = require('express-rate-limit');
  const { RedisStore } = require('rate-limit-redis');
  const client = redisClient(redisPort);
  const legacy = standard === 'legacy';
  app.use(rateLimit({
    windowMs: Number(windowMs),
    limit: Number(limit),
    standardHeaders: legacy ? false : standard,
    legacyHeaders: legacy,
    keyGenerator: (req) => keyOf(req.headers),
    validate: false,
    store: new RedisStore({ sendCommand: (...c) => client.call(...c), prefix: `audit-${standard}:` }),
  }));
  app.get('/', (req, res) => res.send('ok\n'));
  ready(http.createServer(app));
}

async function fastify(limit, windowMs, redisPort) {
  const app = require('fastify')();
  await app.register(require('@fastify/rate-limit'), {
    max: Number(limit),
    timeWindow: Number(windowMs),
    redis: redisClient(redisPort),
    nameSpace: 'audit-fastify:',
    keyGenerator: (req) => keyOf(req.headers),
  });
  app.get('/', async () => 'ok\n');
  await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(`listening ${app.server.address().port}`);
}

function naive(limit, windowMs, redisPort) {
  const client = redisClient(redisPort);
  ready(http.createServer(async (req, res) => {
    const key = `naive:${keyOf(req.headers)}`;
    const count = Number(await client.get(key)) || 0;  // round trip 1: check
    if (count >= Number(limit)) {
      res.writeHead(429, { 'Retry-After': '1' });
      return res.end('too many\n');
    }
    await new Promise((r) => setTimeout(r, 25));  // the handler's own work between check and increment
    await client.multi().incr(key).pexpire(key, Number(windowMs), 'NX').exec();  // round trip 2: increment
    res.writeHead(200, { 'X-RateLimit-Limit': limit, 'X-RateLimit-Remaining': String(Math.max(0, limit - count - 1)) });
    res.end('ok\n');
  }));
}

// An in-memory fixed window from each key's first request; `answer` writes the response.
function memoryWindow(limit, windowMs, answer) {
  const windows = new Map();
  ready(http.createServer((req, res) => {
    const now = Date.now();
    const key = keyOf(req.headers);
    let w = windows.get(key);
    if (!w || now >= w.end) windows.set(key, (w = { end: now + Number(windowMs), count: 0 }));
    w.count += 1;
    answer(res, w.count <= Number(limit), Math.max(0, Number(limit) - w.count), w.end - now);
  }));
}

function retryMs(limit, windowMs) {
  memoryWindow(limit, windowMs, (res, ok, remaining, leftMs) => {
    const policy = { 'RateLimit-Policy': `${limit};w=${Math.ceil(windowMs / 1000)}` };
    if (ok) return res.writeHead(200, policy).end('ok\n');
    res.writeHead(429, { ...policy, 'Retry-After': String(leftMs) });  // the bug: milliseconds
    res.end('too many\n');
  });
}

function chunked(limit, windowMs) {
  memoryWindow(limit, windowMs, (res, ok, remaining, leftMs) => {
    res.statusCode = ok ? 200 : 429;
    res.setHeader('RateLimit-Policy', `"chunky";q=${limit};w=${Math.ceil(windowMs / 1000)}`);
    res.setHeader('RateLimit', `"chunky";r=${remaining};t=${Math.ceil(leftMs / 1000)}`);
    if (!ok) res.setHeader('Retry-After', String(Math.ceil(leftMs / 1000)));
    res.write(ok ? 'o' : 'too ');  // headers go first: Node answers chunked
    setImmediate(() => res.end(ok ? 'k\n' : 'many\n'));
  });
}

function split(limit, windowMs, which) {
  const windows = new Map();
  let splits = 0;
  ready(http.createServer((req, res) => {
    const now = Date.now();
    const key = keyOf(req.headers);
    let w = windows.get(key);
    if (!w || now >= w.end) windows.set(key, (w = { end: now + Number(windowMs), count: 0, split: false }));
    w.count += 1;
    const ok = w.count <= Number(limit);
    const remaining = Math.max(0, Number(limit) - w.count);
    if (!ok && !w.split && (which === 'always' || splits === 0)) {  // the boundary: a new window from here
      splits += 1;
      windows.set(key, { end: now + Number(windowMs), count: 0, split: true });
    }
    res.writeHead(ok ? 200 : 429, {
      'RateLimit-Policy': `"split";q=${limit};w=${Math.ceil(windowMs / 1000)}`,
      RateLimit: `"split";r=${remaining};t=${Math.ceil((w.end - now) / 1000)}`,
    });
    res.end(ok ? 'ok\n' : 'too many\n');
  }));
}

const modes = { express, fastify, naive, 'retry-ms': retryMs, chunked, split };
if (!modes[mode]) {
  console.error(`audit_targets.js: unknown mode '${mode}': allowed ${Object.keys(modes).join(', ')}`);
  process.exit(2);
}
Promise.resolve(modes[mode](...args)).catch((e) => {
  console.error(e);
  process.exit(1);
});
