'use server'
// A server action that asks the model (the same agent as the route): the page posts the form to it.
import { answer } from '../../lib/agent'

export async function ask(_previous: string, form: FormData): Promise<string> {
  let text = ''
  await answer(String(form.get('q') ?? ''), (delta) => (text += delta))
  return text
}
