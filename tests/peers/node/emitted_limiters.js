// Runs limiter options as `ratelab-cli explain --to` emits them, with the real
// express-rate-limit and rate-limiter-flexible (RateLimiterMemory), behind a
// real express 5 server on a free loopback port, and fires one schedule of
// requests at each. Reads FILE = {"express": TEXT, "flexible": TEXT, "offsets_ms": [..]}
// (usage: node emitted_limiters.js FILE); prints one JSON line per request: {"route", "i", "t_ms", "status"},
// where t_ms is the server's Date.now() when the request reached the route,
// relative to the schedule's start. Used by test_dialect_peers.
const express = require('express');
const { rateLimit } = require('express-rate-limit');
const { RateLimiterMemory } = require('rate-limiter-flexible');

function build(text) {
  // The emitted text declares `const limiter = ...`: evaluate it as written.
  return new Function('rateLimit', 'RateLimiterMemory', `${text}\nreturn limiter;`)(rateLimit, RateLimiterMemory);
}

async function main() {
  const input = JSON.parse(require('fs').readFileSync(process.argv[2], "utf8"));
  const erl = build(input.express);
  const rlf = build(input.flexible);
  const seen = [];
  let t0 = 0;
  const stamp = (route) => (req, _res, next) => {
    seen.push({ route, i: Number(req.query.i), t_ms: Date.now() - t0, status: 0 });
    req.record = seen[seen.length - 1];
    next();
  };
  const app = express();
  app.get('/erl', stamp('express-rate-limit'), erl, (req, res) => res.send('ok'));
  app.get('/rlf', stamp('rate-limiter-flexible'), async (req, res) => {
    try {
      await rlf.consume('client');
      res.send('ok');
    } catch (rejected) {
      res.status(429).send('too many');
    }
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  // One warm-up request (not counted) so the first scheduled one is not slowed by setup.
  await fetch(`${base}/warmup`).catch(() => {});
  t0 = Date.now();
  const sends = [];
  input.offsets_ms.forEach((offset, i) => {
    for (const route of ['erl', 'rlf']) {
      sends.push(new Promise((resolve) => setTimeout(async () => {
        const res = await fetch(`${base}/${route}?i=${i}`);
        await res.text();
        resolve({ route: route === 'erl' ? 'express-rate-limit' : 'rate-limiter-flexible', i, status: res.status });
      }, Math.max(0, offset - (Date.now() - t0)))));
    }
  });
  for (const r of await Promise.all(sends)) {
    const rec = seen.find((s) => s.route === r.route && s.i === r.i);
    rec.status = r.status;
  }
  server.close();
  for (const s of seen.sort((a, b) => a.t_ms - b.t_ms)) console.log(JSON.stringify(s));
  process.exit(0);
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
