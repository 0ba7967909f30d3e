import { test } from 'vitest'
import { startCapitalServer } from './support/capital-server.js'
import { Project, runVitest } from './support/project.js'
test('dbg', async () => {
  const server = await startCapitalServer()
  const p = new Project('/work/wt-mocks/.e2e-tmp/dbg')
  const r = await runVitest(p, ['--config', process.env.DBG_CONFIG!], { PROVIDER_URL: server.url, OPENAI_API_KEY: 'sk-e2e-x', ...(process.env.DBG_NO ? {} : {}) }, 60000)
  console.log(r.output, JSON.stringify(server.requests))
  await server.close()
}, 90000)
