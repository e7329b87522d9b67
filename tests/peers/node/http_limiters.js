// Real HTTP limiters writing their keys into the Redis on 127.0.0.1:<redis port>
// through their own code. Used by tests/app/test_cli_keys_audit.cpp.
//   node http_limiters.js express REDIS_PORT MAX WINDOW_MS
//     express 5 + express-rate-limit 8 + rate-limit-redis on a free loopback port;
//     prints {"listening": PORT} and serves until stdin closes.
//   node http_limiters.js fastify REDIS_PORT MAX WINDOW_MS HITS
//     fastify 5 + @fastify/rate-limit 11 (its RedisStore, through ioredis);
//     sends HITS requests with fastify.inject, prints {"key", "used", "status"}, exits.
const Redis = require('ioredis');

async function express(redisPort, max, windowMs) {
  const expressApp = require('express');
  const { rateLimit } = require('express-rate-limit');
  const { RedisStore } = require('rate-limit-redis');
  const redis = new Redis({ host: '127.0.0.1', port: redisPort });
  const app = expressApp();
  app.use(rateLimit({ windowMs, limit: max, standardHeaders: 'draft-8', legacyHeaders: false,
                      store: new RedisStore({ sendCommand: (...args) => redis.call(...args) }) }));
  app.get('/', (req, res) => res.send('ok\n'));
  const server = app.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ listening: server.address().port })));
  process.stdin.on('end', () => { server.close(); redis.quit(); process.exit(0); });
  process.stdin.resume();
}

async function fastify(redisPort, max, windowMs, hits) {
  const app = require('fastify')();
  const redis = new Redis({ host: '127.0.0.1', port: redisPort });
  await app.register(require('@fastify/rate-limit'), { max, timeWindow: windowMs, redis });
  app.get('/', async () => 'ok\n');
  await app.ready();
  let res;
  for (let i = 0; i < hits; ++i) res = await app.inject({ method: 'GET', url: '/', remoteAddress: '10.1.2.3' });
  console.log(JSON.stringify({ key: 'fastify-rate-limit-10.1.2.3', used: hits, status: res.statusCode }));
  await app.close();
  await redis.quit();
}

const [mode, ...args] = process.argv.slice(2);
const run = mode === 'express' ? express : mode === 'fastify' ? fastify : null;
if (!run) { console.error('usage: http_limiters.js express|fastify REDIS_PORT MAX WINDOW_MS [HITS]'); process.exit(2); }
run(...args.map(Number)).catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });
