// GET /api/chat?q=…: the answer streamed to the page as server-sent events, one per token.
import { answer } from '../../../lib/agent'

export const dynamic = 'force-dynamic'

export function GET(request: Request): Response {
  const question = new URL(request.url).searchParams.get('q') ?? ''
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text))
      try {
        await answer(question, (delta) => send(`data: ${JSON.stringify({ delta })}\n\n`))
        send('event: done\ndata: {}\n\n')
      } catch (e) {
        send(`event: failed\ndata: ${JSON.stringify(String((e as Error)?.message ?? e))}\n\n`)
      }
      controller.close()
    },
  })
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' } })
}
