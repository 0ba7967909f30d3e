// The app's own nock scopes for its users API and the geo tool, as its suite would write them.
import nock from 'nock'

/** nock with the network off: the users API and the geo tool are the app's scopes; nothing else may leave. */
export function nockUsers() {
  nock.disableNetConnect()
  const noMatch: string[] = []
  nock.emitter.on('no match', (req: { method?: string; href?: string; host?: string; path?: string }) => noMatch.push(`${req.method ?? ''} ${req.href ?? `${req.host}${req.path}`}`))
  nock('https://users.app.test').get('/me').reply(200, { name: 'Ada' }).persist()
  nock('http://users.app.test').get('/me').reply(200, { name: 'Ada' }).persist()
  nock(process.env.PROVIDER_URL!).get('/geo/capital').query(true).reply(200, { capital: 'London' }).persist()
  return { noMatch }
}
