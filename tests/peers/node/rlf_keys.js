// Writes limiter keys with the real rate-limiter-flexible (RateLimiterRedis,
// BurstyRateLimiter) and rate-limit-redis into the Redis on 127.0.0.1:<port>
// and prints each library's own view as one JSON object per line:
// {"key","library","limit","used","reset_ms"}. Used by test_foreign_keys.
// Usage: node rlf_keys.js PORT
const Redis = require('ioredis');
const { RateLimiterRedis, BurstyRateLimiter } = require('rate-limiter-flexible');
const { RedisStore } = require('rate-limit-redis');

async function main() {
  const port = Number(process.argv[2]);
  const redis = new Redis({ host: '127.0.0.1', port, enableOfflineQueue: true });
  const out = (o) => console.log(JSON.stringify(o));

  const rlf = new RateLimiterRedis({ storeClient: redis, points: 10, duration: 60 });
  let res;
  for (let i = 0; i < 3; ++i) res = await rlf.consume('user42');
  out({ key: 'rlflx:user42', library: 'rate-limiter-flexible', limit: 10, used: res.consumedPoints, reset_ms: res.msBeforeNext });

  const custom = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'login', points: 5, duration: 30 });
  for (let i = 0; i < 7; ++i) res = await custom.consume('alice').catch((r) => r);
  out({ key: 'login:alice', library: 'counter (rate-limiter-flexible shape)', limit: 5, used: res.consumedPoints, reset_ms: res.msBeforeNext });

  const blocker = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rlflx-block', points: 2, duration: 10, blockDuration: 120 });
  for (let i = 0; i < 3; ++i) res = await blocker.consume('mallory').catch((r) => r);
  out({ key: 'rlflx-block:mallory', library: 'rate-limiter-flexible', limit: 2, used: res.consumedPoints, reset_ms: res.msBeforeNext });

  // BurstyRateLimiter: two RateLimiterRedis, the burst one under its own prefix.
  const burst = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rlflxburst', points: 5, duration: 20 });
  const bursty = new BurstyRateLimiter(
    new RateLimiterRedis({ storeClient: redis, keyPrefix: 'rlflx', points: 2, duration: 1 }), burst);
  for (let i = 0; i < 4; ++i) await bursty.consume('bob').catch((r) => r);
  res = await burst.get('bob');
  out({ key: 'rlflxburst:bob', library: 'rate-limiter-flexible', limit: 5, used: res.consumedPoints, reset_ms: res.msBeforeNext });

  const store = new RedisStore({ sendCommand: (...args) => redis.call(...args) });
  store.init({ windowMs: 45000 });
  let hit;
  for (let i = 0; i < 4; ++i) hit = await store.increment('10.0.0.7');
  out({ key: 'rl:10.0.0.7', library: 'rate-limit-redis', limit: 0, used: hit.totalHits,
        reset_ms: hit.resetTime.getTime() - Date.now() });
  await redis.quit();
}

main().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
