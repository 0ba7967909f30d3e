'use client'
import { useActionState } from 'react'
import { ask } from './actions'

export function AskForm() {
  const [answer, action, pending] = useActionState(ask, '')
  return (
    <form action={action}>
      <input name="q" aria-label="question" />
      <button disabled={pending}>Ask</button>
      <p id="answer" data-done={answer && !pending ? 'yes' : undefined}>
        {answer}
      </p>
    </form>
  )
}
