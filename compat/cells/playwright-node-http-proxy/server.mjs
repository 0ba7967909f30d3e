// The cell's app server, shaped like a framework whose router hands requests to a render worker over HTTP (Next.js
// 13.4–13.5 did so): it starts worker.mjs as a child process and forwards every request to it, headers and body as
// they came, streaming the answer back. Nothing here knows fluxlab.
import { fork } from 'node:child_process'
import { createServer, request } from 'node:http'

const PORT = Number(process.env.PORT ?? 3220)
const worker = fork(new URL('./worker.mjs', import.meta.url))
const { port } = await new Promise((resolve) => worker.once('message', resolve))
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => (worker.kill(sig), process.exit(0)))

createServer((req, res) => {
  const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(res)
  })
  upstream.on('error', (e) => res.writeHead(502).end(String(e)))
  req.pipe(upstream)
}).listen(PORT, '127.0.0.1', () => console.log(`router on http://127.0.0.1:${PORT}, worker on ${port}`))
