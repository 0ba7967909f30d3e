/** The example fixture's cells, parsed (model cells, tool cells, manifest text). */
export function readExample(dir: string): { model: object[]; tools: object[]; manifest: string }
/** Write `cells` cells (model and tool cells in the example's 2:1 order) to `dir`; the files' byte sizes and cell counts. */
export function generateFixture(dir: string, exampleDir: string, cells: number): { modelCells: number; toolCells: number; bytes: number }
/** A recorded response served again with its recorded chunks, one `pull` each. */
export function streamed(rec: { status: number; headers: Record<string, string> | [string, string][]; chunks: Array<{ text: string }> }): Response
