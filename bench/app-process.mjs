// The app of bench/public-path.ts in a process of its own (BENCH_PUBLIC_APP_PROCESS=1, an
// ablation): it answers every POST 200 and reports each delivery's arrival to the bench over IPC,
// in batches, as [id, epoch ms] (performance.timeOrigin + performance.now(): one clock for both
// processes on one machine). Prints "app listening on <port>".
import { createServer } from 'node:http';

let batch = [];
let timer;
const flush = () => {
  timer = undefined;
  if (batch.length) process.send?.(batch);
  batch = [];
};
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    batch.push([String(req.headers['x-service-delivery']), performance.timeOrigin + performance.now()]);
    res.writeHead(200, { 'content-length': '2' }).end('ok');
    if (batch.length >= 64) flush();
    else timer ??= setTimeout(flush, 5);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(`app listening on ${server.address().port}`));
process.on('disconnect', () => process.exit(0));
