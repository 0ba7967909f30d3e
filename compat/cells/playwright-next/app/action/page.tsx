import { AskForm } from './ask-form'

export default function ActionPage() {
  return (
    <main>
      <h1>Capital chat, by server action</h1>
      <AskForm />
    </main>
  )
}
