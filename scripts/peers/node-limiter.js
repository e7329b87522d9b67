// The Node peer of scripts/bench-http.sh: a plain `http` server whose every
// request is limited by rate-limiter-flexible's RateLimiterRedis over one
// ioredis connection, keyed by x-api-key (else the client address), answered
// 200 or 429 with a small JSON body, like a RateLab replica.
//
//   node node-limiter.js <port> <redis-port> <points> <duration-seconds>
'use strict';
const http = require('http');
const Redis = require('ioredis');
const { RateLimiterRedis } = require('rate-limiter-flexible');

const [port, redisPort, points, duration] = process.argv.slice(2).map(Number);
const redis = new Redis({ host: '127.0.0.1', port: redisPort, enableOfflineQueue: false });
const limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'node-peer', points, duration });

function answer(res, status, r) {
  const body = JSON.stringify({ status: status === 200 ? 'ok' : 'rate_limited', remaining: r.remainingPoints,
                                retry_after_ms: r.msBeforeNext }) + '\n';
  const headers = { 'Content-Type': 'application/json', 'X-RateLimit-Remaining': String(r.remainingPoints) };
  if (status === 429) headers['Retry-After'] = String(Math.max(1, Math.ceil(r.msBeforeNext / 1000)));
  res.writeHead(status, headers);
  res.end(body);
}

const server = http.createServer((req, res) => {
  const key = req.headers['x-api-key'] || req.socket.remoteAddress;
  limiter.consume(key, 1)
    .then((r) => answer(res, 200, r))
    .catch((r) => {
      if (r instanceof Error) { res.writeHead(500); res.end('{"error":"store error"}\n'); return; }
      answer(res, 429, r);
    });
});
server.keepAliveTimeout = 60000;
redis.on('ready', () => server.listen(port, '127.0.0.1', () => console.log(`node peer on 127.0.0.1:${port}`)));
redis.on('error', (e) => console.error(`redis: ${e.message}`));
process.on('SIGTERM', () => { server.close(); redis.disconnect(); process.exit(0); });
