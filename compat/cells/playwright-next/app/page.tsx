'use client'
// The chat page: the answer of GET /api/chat streamed in, one server-sent event per token.
import { useEffect, useState, type FormEvent } from 'react'

export default function Chat() {
  const [ready, setReady] = useState(false)
  const [text, setText] = useState('')
  const [events, setEvents] = useState(0)
  const [done, setDone] = useState<string | undefined>()
  // Ask only once hydrated (Playwright waits for the button to be enabled), or the form would post natively.
  useEffect(() => setReady(true), [])

  function ask(e: FormEvent<HTMLFormElement>) {
    e.preventDefault()
    const q = String(new FormData(e.currentTarget).get('q') ?? '')
    setText('')
    setEvents(0)
    setDone(undefined)
    const source = new EventSource(`/api/chat?q=${encodeURIComponent(q)}`)
    source.onmessage = (m) => {
      setText((t) => t + (JSON.parse(m.data) as { delta: string }).delta)
      setEvents((n) => n + 1)
    }
    source.addEventListener('done', () => {
      source.close()
      setDone('yes')
    })
    source.addEventListener('failed', (m) => {
      source.close()
      setText((m as MessageEvent<string>).data)
      setDone('failed')
    })
  }

  return (
    <main>
      <h1>Capital chat</h1>
      <form onSubmit={ask}>
        <input name="q" aria-label="question" />
        <button disabled={!ready}>Ask</button>
      </form>
      <p id="answer" data-events={events} data-done={done}>
        {text}
      </p>
    </main>
  )
}
